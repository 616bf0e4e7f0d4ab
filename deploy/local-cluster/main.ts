// npm run cluster -- up|down|status: the local cluster of deploy/local-cluster/README.md.
import { clusterDir, down, loadState, missingPrograms, status, up, urls } from './cluster.js'

const USAGE = 'Usage: npm run cluster -- up|down|status   (files in CLUSTER_DIR, default .cluster/)'

async function main(command: string | undefined): Promise<number> {
  switch (command) {
    case 'up': {
      const missing = missingPrograms()
      if (missing.length > 0) {
        process.stderr.write(`cluster: missing programs; install them:\n  ${missing.join('\n  ')}\n`)
        return 1
      }
      await up({ build: !process.argv.includes('--no-build') })
      return 0
    }
    case 'status': {
      const state = loadState()
      const rows = status(state)
      for (const row of rows) {
        process.stdout.write(`${row.part.padEnd(10)} 127.0.0.1:${String(row.port).padEnd(6)} ${row.running ? `running  pid ${row.pid}` : 'stopped'}\n`)
      }
      process.stdout.write(`API: ${urls(state).haproxy}   files: ${clusterDir()}\n`)
      return rows.every((row) => row.running) ? 0 : 3
    }
    case 'down':
      await down()
      return 0
    default:
      process.stderr.write(`${USAGE}\n`)
      return 2
  }
}

main(process.argv[2]).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`cluster: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  },
)
