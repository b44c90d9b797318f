package io.github.llmthrottle.benchmarks.jmh;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.benchmarks.ThrottleApplication;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.restclient.ThrottlingInterceptor;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.web.client.RestClient;

/**
 * The overhead per call: one Messages call (2 KB body, response with rate-limit headers
 * and {@code usage}) through a {@code RestClient} with llm-throttle's interceptor from
 * the auto-configuration (body reading, token estimate, admission, classification, usage
 * settlement, calibration from the headers), against the same {@code RestClient} without
 * it. Both use a stub HTTP client with no socket, so the difference is what llm-throttle
 * adds to a call; a pass-through interceptor shows how much of that any interceptor costs
 * in Spring.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
// the throttled path is long: on a busy two-core machine it took about 14 s of C2
// compilation before its time per call was steady
@Warmup(iterations = 10, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class InterceptorBenchmark {

    static final String BASE_URL = "http://llm.invalid";

    static final String MODEL = "claude-sonnet-4-5";

    private final String body = new String(MessagesBodies.ofSize(MODEL, 1024, 2048), StandardCharsets.UTF_8);

    private ConfigurableApplicationContext context;

    private RestClient plain;

    private RestClient throttled;

    private RestClient passThrough;

    @Setup
    public void start() {
        long limit = StubRequestFactory.LIMIT;
        this.context = ThrottleApplication.start(BASE_URL, MODEL, Map.of("requests-per-minute", limit,
                "input-tokens-per-minute", limit, "output-tokens-per-minute", limit));
        this.plain = plainClient();
        this.passThrough = this.plain.mutate()
            .requestInterceptor((request, body, execution) -> execution.execute(request, body))
            .build();
        this.throttled = this.plain.mutate()
            .requestInterceptor(this.context.getBean(ThrottlingInterceptor.class))
            .build();
    }

    LlmThrottleRegistry registry() {
        return this.context.getBean(LlmThrottleRegistry.class);
    }

    @TearDown
    public void stop() {
        this.context.close();
    }

    @Benchmark
    public String withoutLlmThrottle() {
        return call(this.plain);
    }

    /**
     * What any {@code ClientHttpRequestInterceptor} costs: Spring buffers the request
     * body for the interceptor chain, whatever the interceptor does.
     * @return the response body
     */
    @Benchmark
    public String withPassThroughInterceptor() {
        return call(this.passThrough);
    }

    @Benchmark
    public String withLlmThrottle() {
        return call(this.throttled);
    }

    private String call(RestClient client) {
        return call(client, this.body);
    }

    /**
     * A {@code RestClient} for the benchmark's base URL on a stub HTTP client, without
     * llm-throttle.
     * @return the client
     */
    static RestClient plainClient() {
        return RestClient.builder()
            .baseUrl(BASE_URL)
            .defaultHeader("x-api-key", "benchmark")
            .defaultHeader("anthropic-version", "2023-06-01")
            .requestFactory(new StubRequestFactory())
            .build();
    }

    /**
     * One Messages call.
     * @param client the client to send it with
     * @param body the request body
     * @return the response body
     */
    static String call(RestClient client, String body) {
        return client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .body(body)
            .retrieve()
            .body(String.class);
    }

}
