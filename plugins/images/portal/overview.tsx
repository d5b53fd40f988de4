// The images' card on the overview: how many images this installation keeps, the disk they take, and what a prune would give back.
import { bytes, count, type OverviewCard } from '../../../sdk/portal/kit.tsx';

function ImagesCard({ summary: { images } }: { summary: { images: { count: number; bytes: number; reclaimableBytes: number } } }) {
  if (!images.count) return <p>No images yet.</p>;
  return (
    <>
      <p><strong>{count(images.count, 'image')}</strong> taking {bytes(images.bytes)}</p>
      <p class={images.reclaimableBytes ? '' : 'muted'}>{images.reclaimableBytes ? <><strong>{bytes(images.reclaimableBytes)}</strong> a prune would free</> : 'Nothing to prune: every image is in use or kept for rollback.'}</p>
    </>
  );
}

export const overviewCards: OverviewCard[] = [{ owner: 'images', title: 'Images', href: '/images', order: 22, component: ImagesCard }];
