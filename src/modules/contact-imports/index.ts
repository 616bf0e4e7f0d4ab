// The contact-imports module's public face: CSV import and export of contacts.
export { contactImportsCommands } from './contact-imports.cli.js'
export { FIELD_TARGETS } from './contact-imports.mapping.js'
export { default as contactImportsRoutes } from './contact-imports.routes.js'
export { ContactImport } from './contact-imports.schemas.js'
export { confirmImport, createImport, exportContacts, getImport, previewImport, recentImports, rejectedRowsCsv } from './contact-imports.service.js'
export type { PreviewRow } from './contact-imports.service.js'
export { ImportWorker } from './import-worker.js'
export type { ImportWorkerOptions } from './import-worker.js'
