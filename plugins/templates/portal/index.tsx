// The templates plugin's portal pages: the gallery, one template's deploy form, and the sources.
import type { PortalPage } from '../../../sdk/portal/kit.tsx';
import { TemplatePage } from './deploy-form.tsx';
import { Gallery } from './gallery.tsx';
import { SourcesPage } from './sources.tsx';

export const pages: PortalPage[] = [
  { path: '/templates', title: 'Templates', nav: 12, group: 'templates', scope: 'templates:read', component: Gallery },
  { path: '/template-sources', title: 'Template sources', nav: 13, group: 'templates', scope: 'templates:read', component: SourcesPage },
  { path: '/templates/:source/:id', title: 'Template', scope: 'templates:read', component: TemplatePage },
];
