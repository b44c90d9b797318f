package io.github.llmthrottle.benchmarks.load;

import java.time.Duration;

import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.ratelimiter.RateLimiter;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.HttpServerErrorException;
import org.springframework.web.client.RestClient;

/**
 * Resilience4j bolted onto a plain {@code RestClient}: a {@link Retry} of at most five
 * attempts on 429 and 5xx with exponential back-off and jitter (500 ms, doubling, ±50 %),
 * optionally around a {@link RateLimiter} of a fixed number of calls a second, which
 * waits up to 30 s for a permit (the same as llm-throttle's default {@code max-wait}). A
 * whole rate {@code n} is {@code n} permits every second; a fractional one (a rate tuned
 * to an average prompt size) is one permit every {@code 1 / rate} seconds. Resilience4j
 * limits calls, not tokens, and reads no response header.
 */
final class Resilience4jContender implements Contender {

    private final RestClient client;

    private final LoadScenario scenario;

    private final Retry retry;

    private final @Nullable RateLimiter rateLimiter;

    Resilience4jContender(String baseUrl, LoadScenario scenario, @Nullable Double callsPerSecond) {
        this.client = PlainRestClients.create(baseUrl);
        this.scenario = scenario;
        this.retry = Retry.of("llm",
                RetryConfig.custom()
                    .maxAttempts(5)
                    .intervalFunction(IntervalFunction.ofExponentialRandomBackoff(Duration.ofMillis(500), 2.0, 0.5))
                    .retryOnException((ex) -> ex instanceof HttpClientErrorException.TooManyRequests
                            || ex instanceof HttpServerErrorException)
                    .build());
        this.rateLimiter = (callsPerSecond != null) ? RateLimiter.of("llm", rateLimiterConfig(callsPerSecond)) : null;
    }

    private static RateLimiterConfig rateLimiterConfig(double callsPerSecond) {
        boolean whole = callsPerSecond == Math.rint(callsPerSecond);
        return RateLimiterConfig.custom()
            .limitForPeriod(whole ? (int) callsPerSecond : 1)
            .limitRefreshPeriod(whole ? Duration.ofSeconds(1) : Duration.ofNanos(Math.round(1e9 / callsPerSecond)))
            .timeoutDuration(Duration.ofSeconds(30))
            .build();
    }

    @Override
    public void call(String prompt) {
        String body = MessagesBodies.singleTurn(this.scenario.model(), this.scenario.maxTokens(), prompt);
        this.retry.executeSupplier(() -> {
            if (this.rateLimiter != null) {
                RateLimiter.waitForPermission(this.rateLimiter);
            }
            return PlainRestClients.post(this.client, body);
        });
    }

}
