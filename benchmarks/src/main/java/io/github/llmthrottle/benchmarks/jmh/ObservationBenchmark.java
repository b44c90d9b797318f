package io.github.llmthrottle.benchmarks.jmh;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.benchmarks.MessagesBodies;
import io.github.llmthrottle.benchmarks.ThrottleApplication;
import io.github.llmthrottle.restclient.ThrottlingInterceptor;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.ObservationRegistry;
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

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.RestClient;

/**
 * What the observations cost ({@code llm.throttle.call} and
 * {@code llm.throttle.attempt}): the call of
 * {@link InterceptorBenchmark#withLlmThrottle()} through an application without an
 * {@code ObservationRegistry} (the observations are not even created) and through one
 * whose registry turns every observation into timers, as Boot's actuator sets it up
 * ({@link DefaultMeterObservationHandler}).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 10, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(2)
public class ObservationBenchmark {

    private static final String BASE_URL = InterceptorBenchmark.BASE_URL;

    private static final String MODEL = InterceptorBenchmark.MODEL;

    private final String body = new String(MessagesBodies.ofSize(MODEL, 1024, 2048), StandardCharsets.UTF_8);

    private ConfigurableApplicationContext unobserved;

    private ConfigurableApplicationContext observed;

    private RestClient unobservedClient;

    private RestClient observedClient;

    @Setup
    public void start() {
        long limit = StubRequestFactory.LIMIT;
        Map<String, Object> limits = Map.of("requests-per-minute", limit, "input-tokens-per-minute", limit,
                "output-tokens-per-minute", limit);
        this.unobserved = ThrottleApplication.start(BASE_URL, MODEL, limits);
        this.observed = new SpringApplicationBuilder(ThrottleApplication.class, ObservedConfiguration.class)
            .web(WebApplicationType.NONE)
            .properties(ThrottleApplication.properties(BASE_URL, MODEL, limits))
            .run();
        this.unobservedClient = client(this.unobserved);
        this.observedClient = client(this.observed);
    }

    private static RestClient client(ConfigurableApplicationContext context) {
        return InterceptorBenchmark.plainClient()
            .mutate()
            .requestInterceptor(context.getBean(ThrottlingInterceptor.class))
            .build();
    }

    /**
     * The meters the observed application's observations became.
     * @return the meter registry
     */
    MeterRegistry observedMeters() {
        return this.observed.getBean(MeterRegistry.class);
    }

    @TearDown
    public void stop() {
        this.unobserved.close();
        this.observed.close();
    }

    @Benchmark
    public String withoutObservationRegistry() {
        return call(this.unobservedClient);
    }

    @Benchmark
    public String withObservationsAsTimers() {
        return call(this.observedClient);
    }

    private String call(RestClient client) {
        return InterceptorBenchmark.call(client, this.body);
    }

    /**
     * An observation registry whose observations become timers, as with Boot's actuator.
     */
    @Configuration(proxyBeanMethods = false)
    static class ObservedConfiguration {

        @Bean
        SimpleMeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        ObservationRegistry observationRegistry(SimpleMeterRegistry meters) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new DefaultMeterObservationHandler(meters));
            return registry;
        }

    }

}
