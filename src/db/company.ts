// The caller's company in a statement, always $1 and compared as `(select $1::bigint)`, so
// that the planner cannot use the value's statistics: a company it has not analysed yet is
// estimated at one row and would otherwise get a plan that walks all of its rows through
// another index and filters on the key (docs/performance.md, "Measured at the statements").
export const COMPANY = '(select $1::bigint)'
