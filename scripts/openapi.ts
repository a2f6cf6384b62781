// Writes the generated API contract files: docs/openapi.json (from the gateway's operation table
// and zod schemas) and packages/client/src/api-types.ts (the document's TypeScript types).
// Run `pnpm openapi` after changing a route or a schema; test/e2e/openapi.test.ts fails while
// either file is stale.
import { writeFileSync } from 'node:fs';
import { clientTypesText, GENERATED, openApiDocumentText } from './openapi-files.ts';

writeFileSync(GENERATED.document, openApiDocumentText());
writeFileSync(GENERATED.clientTypes, await clientTypesText());
console.error('wrote docs/openapi.json and packages/client/src/api-types.ts');
