// The plans test's parameters (test/db/plans.test.ts). A statement gets values by their
// types (Seed.byType: $1 the company, other ids a typical contact's, limits 25, ...) unless
// PARAMS gives them; EXEMPT lists the statements whose plans are not checked, each with why.
import type pg from 'pg'
import type { CompanyInfo } from '../../bench/scale-data.js'

export class Seed {
  private constructor(
    readonly client: pg.Client,
    readonly company: CompanyInfo,
    readonly other: CompanyInfo,
    private readonly labels: Map<string, string>,
  ) {}

  static async read(client: pg.Client, company: CompanyInfo, other: CompanyInfo): Promise<Seed> {
    const { rows } = await client.query<{ type: string; label: string }>(
      `select distinct on (t.typname) t.typname as type, e.enumlabel as label
         from pg_enum e join pg_type t on t.oid = e.enumtypid order by t.typname, e.enumsortorder`,
    )
    return new Seed(client, company, other, new Map(rows.map((r) => [r.type, r.label])))
  }

  get companyId(): number {
    return this.company.companyId
  }
  get contactId(): number {
    return this.company.typicalContactId
  }

  /** A value for each parameter type: the company first, then what a typical request sends. */
  byType(types: string[]): unknown[] {
    return types.map((type, index) => this.value(type, index))
  }

  private value(type: string, index: number): unknown {
    if (type.endsWith('[]')) return [this.value(type.slice(0, -2), 1)]
    switch (type) {
      case 'bigint':
        return index === 0 ? this.companyId : this.contactId
      case 'integer':
      case 'smallint':
        return 25
      case 'numeric':
      case 'double precision':
        return 1
      case 'text':
      case 'character varying':
      case 'unknown':
        return 'UTC' // a name, a term, a colour of 7 characters at most, a time zone
      case 'boolean':
        return true
      case 'timestamp with time zone':
      case 'timestamp without time zone':
        return '2026-11-26T12:00:00Z'
      case 'date':
        return '2026-11-26'
      case 'interval':
        return '1 day'
      case 'json':
      case 'jsonb':
        return '{}'
      case 'uuid':
        return '00000000-0000-4000-8000-000000000000'
      case 'bytea':
        return Buffer.from('00', 'hex')
      case 'inet':
        return '127.0.0.1'
      default: {
        const label = this.labels.get(type)
        if (label === undefined) throw new Error(`no value for a parameter of type ${type}`)
        return label
      }
    }
  }
}

/** Parameters a statement needs that its types alone do not give. */
export const PARAMS: Record<string, (seed: Seed) => unknown[]> = {}

/** Statements whose plans are not checked, and why. */
export const EXEMPT: Record<string, string> = {}
