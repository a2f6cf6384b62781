export { runAdminCommand, USAGE, type AdminOutput } from './commands.ts';
