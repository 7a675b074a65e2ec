import type { RetrievalMetrics, TrialRecord } from '../spec/index.ts';
import type { TrialFacts } from '../score/index.ts';
import { rate } from './group-counters.ts';

/** The running counters of a group's deferred-surface trials (RetrievalMetrics). */
export class RetrievalCounters {
  trials = 0;
  topK = 0;
  judged = 0;
  searched = 0;
  found = 0;
  rankSum = 0;
  selectedFound = 0;
  selectionFoundN = 0;
  selectedMissed = 0;
  selectionMissedN = 0;
  searches = 0;
  initialTokens = 0;
  loadedTokens = 0;
  requestTokens = 0;
  requests = 0;

  /** Count one trial of a deferred surface; `facts` is null for an errored trial (tokens only). */
  add(record: TrialRecord, facts: TrialFacts | null): void {
    const loading = record.loading!;
    this.trials += 1;
    this.topK = Math.max(this.topK, loading.top_k);
    this.initialTokens += loading.initial_schema_tokens;
    this.loadedTokens += loading.loaded.reduce((sum, entry) => sum + entry.tokens, 0);
    for (const tokens of loading.turn_schema_tokens) this.requestTokens += tokens;
    this.requests += loading.turn_schema_tokens.length;
    this.searches += loading.searches.length;
    const retrieval = facts?.retrieval;
    if (!facts || !retrieval) return;
    this.judged += 1;
    if (retrieval.searches > 0) this.searched += 1;
    if (retrieval.found) {
      this.found += 1;
      this.rankSum += retrieval.rank ?? 0;
    }
    if (facts.selection === null) return;
    if (retrieval.found) {
      this.selectionFoundN += 1;
      if (facts.selection) this.selectedFound += 1;
    } else {
      this.selectionMissedN += 1;
      if (facts.selection) this.selectedMissed += 1;
    }
  }

  metrics(): RetrievalMetrics {
    const mean = (total: number, n: number) => (n === 0 ? 0 : total / n);
    return {
      top_k: this.topK,
      recall_at_k: rate(this.found, this.judged),
      searched: rate(this.searched, this.judged),
      mean_rank: this.found === 0 ? null : this.rankSum / this.found,
      selection_given_found: rate(this.selectedFound, this.selectionFoundN),
      selection_given_missed: rate(this.selectedMissed, this.selectionMissedN),
      searches_per_trial: mean(this.searches, this.trials),
      initial_schema_tokens: mean(this.initialTokens, this.trials),
      loaded_schema_tokens: mean(this.loadedTokens, this.trials),
      request_schema_tokens: mean(this.requestTokens, this.requests),
      trials: this.trials,
    };
  }
}
