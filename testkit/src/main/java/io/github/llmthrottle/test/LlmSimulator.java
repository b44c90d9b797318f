package io.github.llmthrottle.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Clock;
import java.time.Duration;

/**
 * A simulated LLM provider on a real loopback port. It serves the Anthropic Messages API
 * ({@code POST /v1/messages}, {@code POST /v1/messages/count_tokens}), the OpenAI Chat
 * Completions API ({@code POST /v1/chat/completions}, also {@code /chat/completions}) and
 * the OpenAI Responses API ({@code POST /v1/responses}, also {@code /responses}, on the
 * same buckets as Chat Completions) and Ollama's chat API ({@code POST /api/chat}: a JSON
 * answer, or an NDJSON stream when {@code stream} is true or absent; on the same buckets
 * as Chat Completions, without rate-limit headers), enforces per-minute rate limits with
 * continuously refilling token buckets per API key and model, sends the providers'
 * rate-limit headers on every response, and injects faults on demand. <pre>{@code
 * try (LlmSimulator simulator = LlmSimulator.builder()
 *         .model("claude-opus-4-7", ModelLimits.of(50, 30_000, 8_000))
 *         .latency(Duration.ofMillis(20), Duration.ofNanos(200_000))
 *         .start()) {
 *     simulator.script("claude-opus-4-7", Fault.status(429).retryAfter("1"), Fault.overloaded(), Fault.ok());
 *     // point the client at simulator.baseUrl()
 * }
 * }</pre>
 * <p>
 * <b>Admission.</b> A request is admitted only if every limited dimension has room (all
 * or nothing). Anthropic requests debit RPM by 1, ITPM by the input estimate
 * ({@link TokenEstimate}) and OTPM by {@code max_tokens}; at the end the unused part of
 * {@code max_tokens} is refunded. OpenAI (and Ollama) requests debit RPM by 1 and TPM by
 * {@code prompt + max_tokens} (Ollama's {@code options.num_predict}), refunded to
 * {@code prompt + actual output}. A request that does not fit gets a 429 with the
 * dialect's error body and {@code retry-after} (whole seconds, rounded up, until it would
 * fit); one that can never fit (more than a whole bucket) gets a 429 without
 * {@code retry-after}.
 * <p>
 * <b>Order of decisions</b> for a valid request: the model's script, then the any-model
 * script; if no script entry or {@link Fault#ok()}: an active outage, then the
 * concurrency cap, then (only without a script entry) the random faults; then the
 * rate-limit buckets. Faults never debit buckets.
 * <p>
 * <b>Prompt caching.</b> Anthropic requests may mark cacheable prefixes with
 * {@code cache_control} ({@code {"type":"ephemeral"}}, optionally {@code "ttl":"5m"} or
 * {@code "1h"}) on tool definitions, system blocks and message content blocks, at most
 * four. The prefix up to a breakpoint is identified by a hash of its blocks, per model.
 * If a prefix ending at a breakpoint, or at one of the 20 blocks before it, was written
 * or read within its TTL on the simulator's clock, its tokens are
 * {@code cache_read_input_tokens} (and the read renews its TTL); the rest up to the last
 * breakpoint is written ({@code cache_creation_input_tokens}, with the
 * {@code cache_creation} breakdown by TTL); what follows is {@code input_tokens}. A
 * prefix shorter than {@link Builder#minimumCacheableTokens(int)} (default 1024) is not
 * cached. The input-token bucket is debited by
 * {@code input_tokens + cache_creation_input_tokens} only: cache reads do not count, as
 * for current Claude models. The usage of a response and of a stream's
 * {@code message_start} carries all three figures.
 * <p>
 * <b>Token counting and downloads.</b> {@code POST /v1/messages/count_tokens} answers
 * {@code {"input_tokens": N}} from the same estimate (without caching), debits no model's
 * buckets and has a request limit of its own
 * ({@link Builder#countTokensRequestsPerMinute(long)}). {@code GET
 * /v1/files/{id}/content} and {@code GET /v1/messages/batches/{id}/results} stream a body
 * of {@link Builder#downloadBytes(long)} generated as it is written, not rate limited.
 * <p>
 * <b>Output.</b> The output is deterministic: {@link OutputTokens} (default 100 tokens)
 * clamped to {@code [1, max_tokens]}, four characters of text per token. Latency is
 * {@code base + perOutputToken × output tokens} (default 20 ms + 0.2 ms per token), slept
 * without holding any lock; a stream sleeps the base before the first delta and the
 * per-token part before each delta.
 * <p>
 * Every runtime setter is thread-safe and takes effect for the next request.
 * {@link #reset()} restores the built configuration. The model name {@value #ANY_MODEL}
 * stands for every model in {@link #script}, {@link #setRandomFaults}, {@link #outage}
 * and {@link #setConcurrencyLimit}.
 */
public final class LlmSimulator extends SimulatorControls implements AutoCloseable {

    /** The model name that stands for every model. */
    public static final String ANY_MODEL = "*";

    static {
        // Without TCP_NODELAY the JDK server's separate header and body writes meet the
        // client's delayed ACK, adding about 40 ms to every response. The JDK server
        // reads this property once, when its configuration class loads; an explicit
        // setting by the application wins.
        if (System.getProperty("sun.net.httpserver.nodelay") == null) {
            System.setProperty("sun.net.httpserver.nodelay", "true");
        }
    }

    private final SimulatorServer server;

    private LlmSimulator(SimulatorConfig config) throws IOException {
        super(new SimulatorState(config));
        this.server = new SimulatorServer(config.port(), config.threads(), this.state);
    }

    /**
     * Starts configuring a simulator.
     * @return a builder with the defaults: no limits, 20 ms + 0.2 ms per output token,
     * 100 output tokens, no faults, any port, no API key required
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts a simulator with the defaults of {@link #builder()}.
     * @return the running simulator
     */
    public static LlmSimulator start() {
        return builder().start();
    }

    /**
     * The base URL, {@code http://127.0.0.1:<port>}: use it as the Anthropic or Ollama
     * base URL, or as the OpenAI base URL for clients that append
     * {@code /v1/chat/completions}.
     * @return the base URL without a trailing slash
     */
    public String baseUrl() {
        return "http://" + this.server.address().getAddress().getHostAddress() + ":" + port();
    }

    /**
     * The base URL with {@code /v1}, for OpenAI clients that append
     * {@code /chat/completions}.
     * @return the OpenAI-style base URL
     */
    public String openAiBaseUrl() {
        return baseUrl() + "/v1";
    }

    /**
     * The port the simulator listens on.
     * @return the port
     */
    public int port() {
        return this.server.address().getPort();
    }

    /**
     * The clock the simulator reads: reset headers, outages, stats series and (when it is
     * not the system clock) bucket refill follow it.
     * @return the clock
     */
    public Clock clock() {
        return this.state.clock();
    }

    /**
     * Stops the server at once: open connections are closed and handler threads
     * interrupted. Idempotent.
     */
    @Override
    public void close() {
        this.server.close();
    }

    @Override
    public String toString() {
        return "LlmSimulator[" + baseUrl() + "]";
    }

    /**
     * Configures and starts an {@link LlmSimulator}. Not thread-safe; reusable (each
     * {@link #start()} starts a new simulator).
     */
    public static final class Builder {

        private final SimulatorConfig.Draft draft = new SimulatorConfig.Draft();

        private Builder() {
        }

        /**
         * Sets the limits of one model.
         * @param model the model name
         * @param limits its limits
         * @return this builder
         */
        public Builder model(String model, ModelLimits limits) {
            this.draft.model(model, limits);
            return this;
        }

        /**
         * Sets the limits of models not configured with {@link #model}; the default is
         * {@link ModelLimits#unlimited()}.
         * @param limits the default limits
         * @return this builder
         */
        public Builder defaultLimits(ModelLimits limits) {
            this.draft.defaultLimits(limits);
            return this;
        }

        /**
         * Listens on a fixed port instead of a free one.
         * @param port the port, 0 for any free port
         * @return this builder
         */
        public Builder port(int port) {
            this.draft.port(port);
            return this;
        }

        /**
         * Sets the latency (default 20 ms + 0.2 ms per output token).
         * @param base the time before the response
         * @param perOutputToken the extra time per output token
         * @return this builder
         */
        public Builder latency(Duration base, Duration perOutputToken) {
            this.draft.latency(base, perOutputToken);
            return this;
        }

        /**
         * Answers without any latency.
         * @return this builder
         */
        public Builder noLatency() {
            return latency(Duration.ZERO, Duration.ZERO);
        }

        /**
         * Generates {@code min(max_tokens, typical)} output tokens per request (default
         * 100).
         * @param typical the typical output
         * @return this builder
         */
        public Builder outputTokens(int typical) {
            return outputTokens(OutputTokens.fixed(typical));
        }

        /**
         * Sets the output policy.
         * @param outputTokens the policy
         * @return this builder
         */
        public Builder outputTokens(OutputTokens outputTokens) {
            this.draft.outputTokens(outputTokens);
            return this;
        }

        /**
         * Sets random fault probabilities for all models.
         * @param faults the probabilities
         * @return this builder
         */
        public Builder randomFaults(RandomFaults faults) {
            return randomFaults(ANY_MODEL, faults);
        }

        /**
         * Sets random fault probabilities for one model.
         * @param model the model name, or {@value LlmSimulator#ANY_MODEL}
         * @param faults the probabilities
         * @return this builder
         */
        public Builder randomFaults(String model, RandomFaults faults) {
            this.draft.randomFaults(model, faults);
            return this;
        }

        /**
         * Seeds the random source of random faults (default 42).
         * @param seed the seed
         * @return this builder
         */
        public Builder seed(long seed) {
            this.draft.seed(seed);
            return this;
        }

        /**
         * Sets the clock for buckets, reset headers, outages and stats (default the
         * system clock). A {@link ManualClock} makes limit behaviour testable without
         * sleeping.
         * @param clock the clock
         * @return this builder
         */
        public Builder clock(Clock clock) {
            this.draft.clock(clock);
            return this;
        }

        /**
         * Accepts only these API keys ({@code x-api-key} or
         * {@code Authorization: Bearer}); other or missing keys get 401.
         * @param keys the valid keys
         * @return this builder
         */
        public Builder apiKeys(String... keys) {
            this.draft.apiKeys(keys);
            return this;
        }

        /**
         * Requires some API key on every request (any value); a missing key gets 401.
         * @param required whether a key is required
         * @return this builder
         */
        public Builder requireApiKey(boolean required) {
            this.draft.requireApiKey(required);
            return this;
        }

        /**
         * Caps the requests in flight, see {@link LlmSimulator#setConcurrencyLimit}.
         * @param model the model name, or {@value LlmSimulator#ANY_MODEL} for all
         * requests together
         * @param maxInFlight the cap
         * @param rejectStatus the status for requests beyond it
         * @return this builder
         */
        public Builder concurrencyLimit(String model, int maxInFlight, int rejectStatus) {
            this.draft.concurrencyLimit(model, maxInFlight, rejectStatus);
            return this;
        }

        /**
         * Sets how many output tokens each stream delta carries (default 4).
         * @param tokens tokens per delta, at least 1
         * @return this builder
         */
        public Builder tokensPerStreamEvent(int tokens) {
            this.draft.tokensPerStreamEvent(tokens);
            return this;
        }

        /**
         * Whether Anthropic's token {@code -remaining} headers are rounded to the nearest
         * thousand as the real API does (default true). Turn it off for exact figures
         * with small limits.
         * @param round whether to round
         * @return this builder
         */
        public Builder roundRemainingTokens(boolean round) {
            this.draft.roundRemainingTokens(round);
            return this;
        }

        /**
         * Sets the most requests served at once by handler threads (default 200); more
         * wait in a queue. Each request in its latency holds a thread.
         * @param threads the thread count
         * @return this builder
         */
        public Builder threads(int threads) {
            this.draft.threads(threads);
            return this;
        }

        /**
         * Makes every bucket hold {@code window}'s worth of its per-minute limit instead
         * of a whole minute's (the default), refilling at the same rate: a provider that
         * enforces its per-minute limit over a shorter interval, as Anthropic says it may
         * ("60 requests per minute may be enforced as 1 request per second"). With a 20 s
         * window, a model limited to 60,000 input tokens a minute takes at most 20,000 at
         * once and refills 1,000 a second; a request needing more than 20,000 is refused
         * without {@code retry-after}. The headers report the per-minute limit as
         * {@code -limit}, what the bucket holds as {@code -remaining}, and the time it is
         * full again as {@code -reset}, as the providers do.
         * @param window how much of the limit a bucket holds, between 1 ms and one minute
         * @return this builder
         */
        public Builder bucketWindow(Duration window) {
            this.draft.bucketWindow(window);
            return this;
        }

        /**
         * Sets the shortest prompt prefix the simulated prompt cache stores, in tokens
         * (default 1024, as for most Claude models; some take 2048 or 4096). A
         * {@code cache_control} breakpoint whose prefix is shorter is ignored.
         * @param tokens the minimum cacheable length, at least 1
         * @return this builder
         */
        public Builder minimumCacheableTokens(int tokens) {
            this.draft.minimumCacheableTokens(tokens);
            return this;
        }

        /**
         * Limits {@code POST /v1/messages/count_tokens} to this many requests a minute
         * per API key (default 0: unlimited), in a bucket of its own that no model's
         * limits share, as Anthropic documents. A request over the limit gets a 429
         * {@code rate_limit_error} with {@code retry-after} and the
         * {@code anthropic-ratelimit-requests-*} headers of that bucket.
         * @param requestsPerMinute the limit, 0 for unlimited
         * @return this builder
         */
        public Builder countTokensRequestsPerMinute(long requestsPerMinute) {
            this.draft.countTokensRequestsPerMinute(requestsPerMinute);
            return this;
        }

        /**
         * Sets the size of the downloads the simulator serves (default 1 MiB): {@code GET
         * /v1/files/{id}/content} sends exactly this many bytes, {@code GET
         * /v1/messages/batches/{id}/results} whole JSON lines of 1 KiB up to at least
         * this many. The bytes are generated as they are sent, never held in memory, so a
         * download of gigabytes tests a client's streaming.
         * @param bytes the size, not negative
         * @return this builder
         */
        public Builder downloadBytes(long bytes) {
            this.draft.downloadBytes(bytes);
            return this;
        }

        /**
         * Starts a simulator with this configuration.
         * @return the running simulator
         * @throws UncheckedIOException if the port cannot be bound
         */
        public LlmSimulator start() {
            try {
                return new LlmSimulator(this.draft.freeze());
            }
            catch (IOException ex) {
                throw new UncheckedIOException("Could not start the LLM simulator", ex);
            }
        }

    }

}
