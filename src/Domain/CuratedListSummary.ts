/** Moved to ./CuratedList.ts: this name stays until src/Search imports that module. */
export { curatedListItemCountSql, curatedListSummaryFieldsSql } from "./CuratedList.js"
