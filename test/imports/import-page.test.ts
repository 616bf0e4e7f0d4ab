// Contacts → Import and Contacts → Export in Chromium: a file uploaded, its mapping changed,
// the preview of its first rows, the run with its progress (the page read again), the
// rejected rows downloaded; and the export of a filtered view of the list. The app runs its
// import worker, as the server does.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { after, before, describe, test } from 'node:test'
import type { Browser, Page } from 'playwright-core'
import { systemActing } from '../../src/acting.js'
import { createCompany } from '../../src/modules/users-api/users-api.service.js'
import { asCompanyId, type CompanyId } from '../../src/tenancy.js'
import { backends, type TestApp } from '../helpers/app.js'
import { signInInChromium, startInChromium, withoutChromium } from '../helpers/chromium.js'
import { addContact } from '../helpers/contacts-factories.js'
import { rawRows, sql } from '../helpers/sql.js'
import { member, PASSWORD } from '../web/helpers.js'

const [backend] = backends()
if (!backend) throw new Error('no backend')

describe('Contacts → Import and Export in Chromium', { skip: withoutChromium }, () => {
  let t: TestApp
  let browser: Browser
  let origin: string
  let companyId: CompanyId

  before(async () => {
    ;({ t, browser, origin } = await startInChromium(backend, { deps: { importWorker: { pollIntervalMs: 50, batchRows: 2 } } }))
    companyId = asCompanyId((await createCompany(t.db, systemActing(), { name: 'Acme Sales', timezone: 'UTC' })).id)
  })
  after(async () => {
    await browser.close()
    await t.close()
  })

  async function signedIn(): Promise<{ page: Page; userId: number; problems: string[] }> {
    const user = await member(t.db, companyId)
    const context = await browser.newContext({ acceptDownloads: true })
    const page = await context.newPage()
    const problems: string[] = []
    page.on('pageerror', (error) => problems.push(error.message))
    await signInInChromium(page, origin, user.email, PASSWORD)
    await page.waitForLoadState()
    return { page, userId: user.id, problems }
  }

  test('upload, mapping, preview, run, progress, rejected rows', async () => {
    const { page, problems } = await signedIn()
    await page.goto(`${origin}/contacts`)
    await page.getByRole('link', { name: 'Import' }).click()
    await page.waitForURL(`${origin}/contacts/import`)
    const file = 'Given,Email,Company Name,Shoe\nAna,ana@globex.example,Globex,38\nBo,not-an-email,Initech,41\nCy,cy@umbrella.example,Umbrella,\n'
    await page.getByLabel('CSV file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(file) })
    await page.getByRole('button', { name: 'Upload and map columns' }).click()
    await page.waitForURL(/\/contacts\/import\/\d+$/)
    assert.equal(await page.getByRole('heading', { level: 1 }).textContent(), 'Import people.csv')
    // Given is no known header: it is ignored until mapped; without a first name every row is refused in the preview.
    assert.equal(await page.getByLabel('Given').inputValue(), 'ignore')
    assert.equal(await page.getByLabel('Email').inputValue(), 'email')
    await page.getByLabel('Given').selectOption('first_name')
    await page.getByLabel('Shoe').selectOption('custom_field:Shoe')
    await page.getByRole('button', { name: 'Update the preview' }).click()
    await page.waitForLoadState()
    const preview = await page.locator('#preview tbody tr').allTextContents()
    assert.equal(preview.length, 3)
    assert.match(preview[0] ?? '', /^2New contactAnaana@globex\.exampleGlobex38$/)
    assert.match(preview[1] ?? '', /^3Rejected: email is invalid/)
    assert.match(preview[2] ?? '', /^4New contactCy/)
    assert.deepEqual(await rawRows(t.db, sql`select id from contacts where company_id = ${companyId}`), [], 'the preview saves nothing')

    await page.getByRole('button', { name: 'Run the import' }).click()
    await page.waitForURL(/\/contacts\/import\/\d+$/)
    // The page reads itself again until the import is done.
    await page.locator('#import-state', { hasText: 'Done' }).waitFor({ timeout: 20_000 })
    assert.match(await page.locator('#import-counts').textContent() ?? '', /3 rows read: 2 created, 0 updated, 0 skipped, 1 rejected/)
    await page.reload()
    assert.equal(await page.locator('#import-state').textContent(), 'Done', 'the state survives a reload')
    const download = page.waitForEvent('download')
    await page.locator('#errors-download').click()
    const path = await (await download).path()
    assert.equal(await readFile(path, 'utf8'), '\ufeffline,reason,Given,Email,Company Name,Shoe\r\n3,email is invalid,Bo,not-an-email,Initech,41\r\n')
    const saved = await rawRows<{ email: string; fields: string }>(t.db, sql`
      select email, custom_fields_json::text as fields from contacts where company_id = ${companyId} order by email`)
    assert.deepEqual(saved, [{ email: 'ana@globex.example', fields: '[{"field":"Shoe","value":"38"}]' }, { email: 'cy@umbrella.example', fields: '[]' }])
    assert.deepEqual(problems, [])
    await page.context().close()
  })

  test('the export of a filtered view of the list', async () => {
    const { page, userId, problems } = await signedIn()
    await addContact(t.db, { companyId, userId }, { first_name: 'Dora', email: 'dora@hooli.example', business: 'Hooli' })
    await addContact(t.db, { companyId, userId }, { first_name: 'Eve', email: 'eve@initrode.example', business: 'Initrode' })
    await page.goto(`${origin}/contacts`)
    await page.getByLabel('Search').fill('hooli')
    await page.getByRole('button', { name: 'Show' }).click()
    await page.waitForURL(/search_term=hooli/)
    const download = page.waitForEvent('download')
    await page.getByRole('link', { name: 'Export this view' }).click()
    const text = await readFile(await (await download).path(), 'utf8')
    const lines = text.slice(1).split('\r\n').filter((line) => line !== '')
    assert.ok(text.startsWith('\ufeffid,first_name,'))
    assert.deepEqual(lines.slice(1).map((line) => line.split(',')[3]), ['dora@hooli.example'])
    assert.deepEqual(problems, [])
    await page.context().close()
  })
})
