import { createRequire } from 'node:module';
import { openApiDocument, openApiDocumentText } from '@wirehook/http-api';

/** The generated API contract files: their paths and the text each must hold. */
export const GENERATED = {
  document: new URL('../docs/openapi.json', import.meta.url),
  clientTypes: new URL('../packages/client/src/api-types.ts', import.meta.url),
};

export { openApiDocumentText };

/** The two functions of openapi-typescript used here (its types live with it, in the client package). */
interface OpenapiTypescript {
  default: (schema: object, options: { exportType: boolean }) => Promise<unknown>;
  astToString: (ast: unknown) => string;
}

/**
 * packages/client/src/api-types.ts's text: the document's types, by openapi-typescript. It is
 * the client package's dev dependency, with TypeScript 5 beside it: it drives the compiler
 * API, which TypeScript 7's native compiler (the rest of the tree's) does not have.
 */
export async function clientTypesText(): Promise<string> {
  const fromClient = createRequire(new URL('../packages/client/package.json', import.meta.url));
  const { default: openapiTS, astToString } = fromClient('openapi-typescript') as OpenapiTypescript;
  const ast = await openapiTS(openApiDocument(), { exportType: true });
  return `// Generated from docs/openapi.json by \`pnpm openapi\` (openapi-typescript). Do not edit.\n\n${astToString(ast)}`;
}
