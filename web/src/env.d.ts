/** docs/rules.md rendered to HTML at build time (vite.config.ts, markdown.ts). */
declare module "virtual:rule-book" {
  const ruleBook: { html: string; headings: { level: number; text: string; id: string }[] };
  export default ruleBook;
}
