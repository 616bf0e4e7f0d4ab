// The caller's company in a statement, always $1 and compared as `(select $1::bigint)`: the
// planner then cannot use the value's statistics, so a company it has not analysed yet
// (estimated at one row) does not get a plan that walks all of its rows through another
// index and filters on the key (a contact by id in a fresh 30,000-contact company: 152 → 5
// buffers; a page of a fresh 50,000-task company: 35,000 → 130; docs/performance.md).
export const COMPANY = '(select $1::bigint)'
