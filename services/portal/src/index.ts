export * from './create-portal-app.ts';
export * from './page.ts';
