// A unique key of the database as the API answers its violation: a 422 saying that the field
// "has already been taken". The key, not a read before the write, decides between concurrent
// writers.
import { uniqueViolation } from '../db/pg-errors.js'
import { invalid } from '../errors.js'

/** Throws the 422 on `field` when `err` violates the unique key `constraint`; else throws `err` itself. */
export function rethrowTaken(err: unknown, constraint: string, field: string): never {
  if (uniqueViolation(err) === constraint) throw invalid({ [field]: ['has already been taken'] })
  throw err
}
