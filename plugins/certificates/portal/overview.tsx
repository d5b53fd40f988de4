// The certificates' card on the overview and the page a certificate named in an attention item opens.
import { count, enc, type OverviewCard, type ResourcePaths } from '../../../sdk/portal/kit.tsx';

function CertificatesCard({ summary: { certificates: c } }: { summary: { certificates: { total: number; acme: number; upload: number } } }) {
  if (!c.total) return <p>No certificates yet.</p>;
  const from = [c.acme && `${c.acme} from ACME`, c.upload && `${c.upload} uploaded`].filter(Boolean).join(', ');
  return <p><strong>{count(c.total, 'certificate')}</strong>{from && <span class="muted"> ({from})</span>}</p>;
}

export const overviewCards: OverviewCard[] = [{ owner: 'certificates', title: 'Certificates', href: '/certificates', order: 40, component: CertificatesCard }];

export const resourcePaths: ResourcePaths = { certificate: (name) => `/certificates/${enc(name)}` };
