package io.github.llmthrottle.test;

import java.time.Instant;
import java.util.Collections;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * A snapshot of what the simulator saw since it started or since the last
 * {@link LlmSimulator#resetStats()}: for all models ({@link LlmSimulator#stats()}) or one
 * ({@link LlmSimulator#stats(String)}).
 * <p>
 * Every request to a Messages or Chat Completions endpoint is an attempt and ends in
 * exactly one of {@code successes} (2xx, including streams that later carried an error
 * event), {@code rateLimited} (any 429), {@code overloaded} (529), {@code otherErrors}
 * (every other 4xx and 5xx) or {@code connectionResets}. Requests rejected before their
 * model was known (bad JSON, wrong key) count only in the all-models snapshot.
 *
 * @param attempts requests received
 * @param successes 2xx responses
 * @param rateLimited 429 responses (rate limits, scripted, quota, concurrency cap)
 * @param overloaded 529 responses
 * @param otherErrors every other error status
 * @param connectionResets connections closed without a (complete) response
 * @param streamErrors 200 streams that carried an error event
 * @param admitted requests that passed the rate-limit buckets
 * @param inputTokens input tokens admitted as the input-token limit counts them (the
 * simulator's estimate, less what an Anthropic request read from the prompt cache)
 * @param outputTokens output tokens generated (after the refund of unused
 * {@code max_tokens})
 * @param maxConcurrent the most requests in flight at once
 * @param inputTokensPerSecond input tokens admitted, by the second (of the simulator's
 * clock) in which they were admitted
 * @param outputTokensPerSecond output tokens generated, by the second in which the
 * request was admitted
 * @param cacheReadInputTokens input tokens admitted requests read from the prompt cache
 * ({@code cache_read_input_tokens}; not in {@code inputTokens})
 * @param cacheCreationInputTokens input tokens admitted requests wrote to the prompt
 * cache ({@code cache_creation_input_tokens}; part of {@code inputTokens})
 * @param admittedPerSecond requests admitted, by the second (of the simulator's clock) in
 * which they were admitted
 */
public record SimulatorStats(long attempts, long successes, long rateLimited, long overloaded, long otherErrors,
        long connectionResets, long streamErrors, long admitted, long inputTokens, long outputTokens, int maxConcurrent,
        NavigableMap<Instant, Long> inputTokensPerSecond, NavigableMap<Instant, Long> outputTokensPerSecond,
        long cacheReadInputTokens, long cacheCreationInputTokens, NavigableMap<Instant, Long> admittedPerSecond) {

    /**
     * Makes the series unmodifiable copies.
     * @param attempts requests received
     * @param successes 2xx responses
     * @param rateLimited 429 responses
     * @param overloaded 529 responses
     * @param otherErrors other error statuses
     * @param connectionResets connections closed without a response
     * @param streamErrors streams with an error event
     * @param admitted requests admitted
     * @param inputTokens input tokens admitted
     * @param outputTokens output tokens generated
     * @param maxConcurrent peak requests in flight
     * @param inputTokensPerSecond input tokens by second
     * @param outputTokensPerSecond output tokens by second
     * @param cacheReadInputTokens input tokens read from the prompt cache
     * @param cacheCreationInputTokens input tokens written to the prompt cache
     * @param admittedPerSecond requests admitted by second
     */
    public SimulatorStats {
        inputTokensPerSecond = Collections.unmodifiableNavigableMap(new TreeMap<>(inputTokensPerSecond));
        outputTokensPerSecond = Collections.unmodifiableNavigableMap(new TreeMap<>(outputTokensPerSecond));
        admittedPerSecond = Collections.unmodifiableNavigableMap(new TreeMap<>(admittedPerSecond));
    }

    /**
     * Input tokens admitted in a time window, from the per-second series.
     * @param fromInclusive start of the window (the second it falls in is included)
     * @param toExclusive end of the window
     * @return the admitted input tokens
     */
    public long inputTokensBetween(Instant fromInclusive, Instant toExclusive) {
        return sum(this.inputTokensPerSecond, fromInclusive, toExclusive);
    }

    /**
     * Output tokens generated in a time window, from the per-second series.
     * @param fromInclusive start of the window
     * @param toExclusive end of the window
     * @return the output tokens
     */
    public long outputTokensBetween(Instant fromInclusive, Instant toExclusive) {
        return sum(this.outputTokensPerSecond, fromInclusive, toExclusive);
    }

    private static long sum(NavigableMap<Instant, Long> series, Instant from, Instant to) {
        Instant start = Instant.ofEpochSecond(from.getEpochSecond());
        long total = 0;
        for (long v : series.subMap(start, true, to, false).values()) {
            total += v;
        }
        return total;
    }

}
