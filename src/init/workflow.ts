/**
 * `.github/workflows/toolmark.yml`: record once with a key (by hand),
 * replay + compare against the base branch on pull requests (no key), and a
 * nightly live run gated against the last good night's run, kept as an
 * artifact. Every job puts report.md in the job summary and uploads junit.xml.
 */
export function workflowSource(domain: string, model: string, keyEnv: string): string {
  const key = `\${{ secrets.${keyEnv} }}`;
  return `# toolmark in CI, written by \`toolmark init\`. Three jobs:
# - record (run by hand: Actions → toolmark → Run workflow, record = true):
#   a live run with the ${keyEnv} secret; download the cassette artifact and
#   commit it under suites/${domain}/cassettes/, so pull requests replay it.
# - pull-request: replay (no key) on the PR and on its base branch, then
#   \`toolmark compare\` them: did the surface revision help or hurt?
# - nightly: a live run, gated against the last nightly that passed (kept
#   as the artifact toolmark-baseline); exit 1 on a regression.
name: toolmark

on:
  pull_request:
  schedule:
    - cron: '17 3 * * *'
  workflow_dispatch:
    inputs:
      record:
        description: Record a cassette with the live model (uses the ${keyEnv} secret)
        type: boolean
        default: false

permissions:
  contents: read
  actions: read

jobs:
  record:
    if: github.event_name == 'workflow_dispatch' && inputs.record
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with: { node-version: 20, cache: npm }
      - run: npm ci
      - run: npx toolmark validate
      - run: npx toolmark run --provider ${model} --trials 3 --record recorded.jsonl --run-id recorded
        env:
          ${keyEnv}: ${key}
      - run: cat results/recorded/report.md >> "$GITHUB_STEP_SUMMARY"
      - uses: actions/upload-artifact@v4
        with: { name: toolmark-cassette, path: recorded.jsonl }

  pull-request:
    if: github.event_name == 'pull_request'
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with: { fetch-depth: 0 }
      - uses: actions/setup-node@v4
        with: { node-version: 20, cache: npm }
      - run: npm ci
      - run: npx toolmark validate
      # The PR's suites, replayed (no key; a stale cassette is refused with a clear message).
      - run: npx toolmark run --run-id pr
      # The base branch's suites, replayed by the same toolmark.
      - run: |
          git worktree add ../base "origin/\${{ github.base_ref }}"
          npx toolmark run --root ../base --out "$PWD/results" --run-id base
      - run: npx toolmark compare results/base results/pr | tee compare.txt
      - if: always()
        run: |
          { echo '## toolmark: this PR vs its base'; echo '\`\`\`'; cat compare.txt; echo '\`\`\`'; cat results/pr/report.md; } >> "$GITHUB_STEP_SUMMARY"
      - if: always()
        uses: actions/upload-artifact@v4
        with: { name: toolmark-pr, path: results/ }

  nightly:
    if: github.event_name == 'schedule'
    runs-on: ubuntu-latest
    env:
      GH_TOKEN: \${{ github.token }}
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with: { node-version: 20, cache: npm }
      - run: npm ci
      - run: npx toolmark run --provider ${model} --run-id nightly
        env:
          ${keyEnv}: ${key}
      # The baseline: the run folder of the last nightly whose gate passed.
      - name: fetch the baseline
        run: |
          id=$(gh run list --workflow toolmark.yml --event schedule --status success --limit 1 --json databaseId --jq '.[0].databaseId // empty')
          if [ -n "$id" ]; then gh run download "$id" --name toolmark-baseline --dir results/baseline || true; fi
      - name: gate
        run: |
          if [ -f results/baseline/summary.json ]; then
            npx toolmark gate results/nightly --baseline results/baseline
          else
            echo "no baseline yet: this run becomes the first one"
          fi
      - if: always()
        run: cat results/nightly/report.md >> "$GITHUB_STEP_SUMMARY"
      - if: always()
        uses: actions/upload-artifact@v4
        with: { name: toolmark-junit, path: results/nightly/junit.xml }
      # Only a night that passed the gate becomes the next baseline.
      - uses: actions/upload-artifact@v4
        with: { name: toolmark-baseline, path: results/nightly/, retention-days: 90 }
`;
}
