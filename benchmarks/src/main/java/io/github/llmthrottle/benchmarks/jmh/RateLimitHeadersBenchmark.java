package io.github.llmthrottle.benchmarks.jmh;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.provider.ProviderDialect;
import io.github.llmthrottle.provider.RateLimitHeaders;
import io.github.llmthrottle.provider.RateLimitSnapshot;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.http.HttpHeaders;

/**
 * Parsing the rate-limit headers of one response: the full Anthropic set (twelve
 * {@code anthropic-ratelimit-*} headers, RFC 3339 resets) and the OpenAI set (six
 * {@code x-ratelimit-*} headers, Go-duration resets), each among the other headers a real
 * response carries.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RateLimitHeadersBenchmark {

    /** The provider whose header set is parsed. */
    @Param({ "ANTHROPIC", "OPENAI" })
    public ProviderDialect dialect;

    private HttpHeaders headers = new HttpHeaders();

    private final Instant receivedAt = Instant.parse("2025-08-21T12:40:58Z");

    @Setup
    public void createHeaders() {
        this.headers = switch (this.dialect) {
            case ANTHROPIC -> anthropic();
            case OPENAI -> openAi();
            case OLLAMA, GENERIC -> throw new IllegalArgumentException("not benchmarked");
        };
    }

    @Benchmark
    public RateLimitSnapshot parse() {
        return RateLimitHeaders.parse(this.dialect, this.headers::getOrEmpty, this.receivedAt);
    }

    /** The header set of a real Anthropic 200 response, values as recorded. */
    static HttpHeaders anthropic() {
        HttpHeaders headers = new HttpHeaders();
        headers.set("date", "Thu, 21 Aug 2025 12:40:58 GMT");
        headers.set("content-type", "application/json");
        headers.set("anthropic-ratelimit-input-tokens-limit", "80000");
        headers.set("anthropic-ratelimit-input-tokens-remaining", "80000");
        headers.set("anthropic-ratelimit-input-tokens-reset", "2025-08-21T12:40:59Z");
        headers.set("anthropic-ratelimit-output-tokens-limit", "16000");
        headers.set("anthropic-ratelimit-output-tokens-remaining", "16000");
        headers.set("anthropic-ratelimit-output-tokens-reset", "2025-08-21T12:41:00Z");
        headers.set("anthropic-ratelimit-requests-limit", "1000");
        headers.set("anthropic-ratelimit-requests-remaining", "999");
        headers.set("anthropic-ratelimit-requests-reset", "2025-08-21T12:40:59Z");
        headers.set("anthropic-ratelimit-tokens-limit", "96000");
        headers.set("anthropic-ratelimit-tokens-remaining", "96000");
        headers.set("anthropic-ratelimit-tokens-reset", "2025-08-21T12:40:59Z");
        headers.set("request-id", "req_011CSLsW7mFqvHHnzrKdKjAE");
        headers.set("strict-transport-security", "max-age=31536000; includeSubDomains; preload");
        headers.set("anthropic-organization-id", "36562039-0e8c-4d3f-9c2a-3b2f1d0e5a7b");
        headers.set("via", "1.1 google");
        headers.set("cf-cache-status", "DYNAMIC");
        headers.set("server", "cloudflare");
        headers.set("cf-ray", "97283a2f8d1e5b7c-FRA");
        return headers;
    }

    /** The header set of an OpenAI Chat Completions 200 response. */
    static HttpHeaders openAi() {
        HttpHeaders headers = new HttpHeaders();
        headers.set("date", "Thu, 21 Aug 2025 12:40:58 GMT");
        headers.set("content-type", "application/json");
        headers.set("openai-organization", "user-abc123");
        headers.set("openai-processing-ms", "412");
        headers.set("openai-version", "2020-10-01");
        headers.set("x-ratelimit-limit-requests", "10000");
        headers.set("x-ratelimit-limit-tokens", "30000000");
        headers.set("x-ratelimit-remaining-requests", "9999");
        headers.set("x-ratelimit-remaining-tokens", "29999982");
        headers.set("x-ratelimit-reset-requests", "6ms");
        headers.set("x-ratelimit-reset-tokens", "1m2.5s");
        headers.set("x-request-id", "req_8f2a1c3d4e5b6a7f8091a2b3c4d5e6f7");
        headers.set("strict-transport-security", "max-age=31536000; includeSubDomains; preload");
        headers.set("cf-cache-status", "DYNAMIC");
        headers.set("server", "cloudflare");
        headers.set("cf-ray", "97283a2f8d1e5b7c-FRA");
        return headers;
    }

}
