// The admin command line: `npx engage-admin <resource> <action> [--option value] [--json]`.
// It opens the same database as the server (DATABASE_URL, else DATA_DIR), applies the
// migrations, runs one command and prints its result (src/cli/run.ts).
import { runCli } from './run.js'

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  // A long export waits for a slow reader instead of piling its output up in memory.
  write: (text) =>
    new Promise<void>((resolve) => {
      if (process.stdout.write(text)) resolve()
      else process.stdout.once('drain', resolve)
    }),
  progress: process.stderr.isTTY,
  stdin: async () => {
    let text = ''
    for await (const chunk of process.stdin.setEncoding('utf8')) text += chunk as string
    return text
  },
})
