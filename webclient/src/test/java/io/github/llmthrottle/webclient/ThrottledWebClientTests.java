package io.github.llmthrottle.webclient;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.ThrottleContextAccessor;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.AdmissionRecorder;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ModelTotals;
import io.github.llmthrottle.client.ThrottleObserver;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.limit.LimiterState;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.test.LlmSimulatorExtension;
import io.github.llmthrottle.test.ModelLimits;
import io.github.llmthrottle.time.FakeClock;
import io.github.llmthrottle.time.TimeSource;
import io.github.llmthrottle.webclient.autoconfigure.LlmThrottleWebClientAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.http.client.autoconfigure.reactive.ReactiveHttpClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The throttled {@code WebClient} against the simulated provider: the client's own
 * {@code NAMEWebClient} and any {@code WebClient} built from Boot's builder go through
 * the non-blocking call pipeline, JSON answers and event streams are settled, a 429 is
 * retried after the server's wait (on a fake clock the test moves), other hosts are not
 * touched, and waiting calls hold no thread.
 */
class ThrottledWebClientTests {

    private static final String MODEL = "claude-sonnet-4-5";

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    @RegisterExtension
    static final LlmSimulatorExtension simulator = LlmSimulatorExtension
        .of(LlmSimulator.builder().model(MODEL, ModelLimits.of(1000, 1_000_000, 100_000)).outputTokens(40).noLatency());

    @RegisterExtension
    static final LlmSimulatorExtension otherHost = LlmSimulatorExtension
        .of(LlmSimulator.builder().outputTokens(40).noLatency());

    private final FakeClock clock = FakeClock.at("2026-03-02T09:00:00Z");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(HttpClientAutoConfiguration.class,
                ReactiveHttpClientAutoConfiguration.class, WebClientAutoConfiguration.class,
                LlmThrottleAutoConfiguration.class, LlmThrottleWebClientAutoConfiguration.class))
        .withBean(TimeSource.class, () -> this.clock)
        .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                "llm.throttle.clients.anthropic.base-url=" + simulator.baseUrl(),
                "llm.throttle.clients.anthropic.api-key=test-key",
                "llm.throttle.clients.anthropic.models." + MODEL + ".output-tokens-per-minute=10000");

    @Test
    void thePriorityAndTenantInTheReactorContextReachTheAdmission() {
        List<String> admitted = new CopyOnWriteArrayList<>();
        this.runner.withBean(ThrottleObserver.class, () -> new AdmissionRecorder(admitted)).run((context) -> {
            WebClient client = context.getBean("anthropicWebClient", WebClient.class);
            ThrottleContext invocation = new ThrottleContext("anthropic", MODEL, Priority.REALTIME, "acme", 1, null);
            // as a @Throttled method returning a Mono puts it, read on whatever thread
            // subscribes
            String answer = messages(client, 100, false).retrieve()
                .bodyToMono(String.class)
                .contextWrite((reactive) -> reactive.put(ThrottleContextAccessor.KEY, invocation))
                .block(TIMEOUT);
            assertThat(answer).contains("\"usage\"");
            assertThat(admitted).containsExactly("REALTIME/acme");
        });
    }

    @Test
    void aJsonAnswerIsSettledFromItsBody() {
        this.runner.run((context) -> {
            WebClient client = context.getBean("anthropicWebClient", WebClient.class);
            String answer = messages(client, 1000, false).retrieve().bodyToMono(String.class).block(TIMEOUT);
            assertThat(answer).contains("\"usage\"");
            ThrottledClient.ThrottledModel model = model(context.getBean(LlmThrottleRegistry.class));
            ModelTotals.Snapshot totals = model.getTotals().snapshot();
            assertThat(totals.succeeded()).isOne();
            assertThat(totals.outputTokens()).isEqualTo(40);
            assertThat(totals.inputTokens()).isPositive();
            assertThat(model.getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    void anEventStreamIsSettledAsTheFluxIsRead() {
        this.runner.run((context) -> {
            WebClient client = context.getBean("anthropicWebClient", WebClient.class);
            ThrottledClient.ThrottledModel model = model(context.getBean(LlmThrottleRegistry.class));
            List<String> events = client.post()
                .uri("/v1/messages")
                .contentType(MediaType.APPLICATION_JSON)
                .accept(MediaType.TEXT_EVENT_STREAM)
                .bodyValue(body(1000, true))
                .retrieve()
                .bodyToFlux(String.class)
                .collectList()
                .block(TIMEOUT);
            assertThat(events).isNotEmpty();
            assertThat(String.join("\n", events)).contains("message_stop");
            ModelTotals.Snapshot totals = model.getTotals().snapshot();
            assertThat(totals.succeeded()).isOne();
            assertThat(totals.outputTokens()).isEqualTo(40);
            LimiterState state = model.getLimiter().state();
            assertThat(state.inFlight()).isZero();
            // 1,000 reserved from max_tokens, 40 used: the rest came back as the stream
            // ended
            assertThat(state.available().outputTokens()).isGreaterThanOrEqualTo(9_000);
        });
    }

    @Test
    void aRateLimitIsRetriedAfterTheServersWaitWithoutAThreadWaiting() {
        simulator.simulator().script(MODEL, Fault.status(429).retryAfter("2"));
        this.runner.run((context) -> {
            WebClient client = context.getBean("anthropicWebClient", WebClient.class);
            CompletableFuture<String> answer = messages(client, 100, false).retrieve()
                .bodyToMono(String.class)
                .toFuture();
            await().atMost(TIMEOUT).until(() -> simulator.simulator().stats(MODEL).rateLimited() == 1);
            ThrottledClient.ThrottledModel model = model(context.getBean(LlmThrottleRegistry.class));
            await().atMost(TIMEOUT).until(() -> model.getTotals().snapshot().rateLimited() == 1);
            assertThat(answer).isNotDone();
            assertThat(this.clock.sleeps()).isEmpty();
            // not before the server's 2 seconds
            this.clock.advance(Duration.ofSeconds(1));
            assertThat(simulator.simulator().stats(MODEL).attempts()).isOne();
            // then the wait (with its jitter) ends on the fake clock, a second at a time
            await().atMost(TIMEOUT).until(() -> {
                this.clock.advance(Duration.ofSeconds(1));
                return answer.isDone();
            });
            assertThat(answer.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).contains("\"usage\"");
            assertThat(simulator.simulator().stats(MODEL).successes()).isOne();
            assertThat(model.getTotals().snapshot().retries()).isOne();
            assertThat(model.getLimiter().state().inFlight()).isZero();
        });
    }

    @Test
    void aWebClientFromBootsBuilderIsThrottledAndOtherHostsAreNot() {
        this.runner.run((context) -> {
            WebClient.Builder builder = context.getBean(WebClient.Builder.class);
            WebClient throttled = builder.clone().baseUrl(simulator.baseUrl()).build();
            WebClient other = builder.clone().baseUrl(otherHost.baseUrl()).build();
            messages(throttled, 100, false).header("x-api-key", "test-key")
                .retrieve()
                .toBodilessEntity()
                .block(TIMEOUT);
            messages(other, 100, false).header("x-api-key", "test-key").retrieve().toBodilessEntity().block(TIMEOUT);
            ThrottledClient.ThrottledModel model = model(context.getBean(LlmThrottleRegistry.class));
            assertThat(model.getTotals().snapshot().calls()).isOne();
            assertThat(otherHost.simulator().stats().attempts()).isOne();
        });
    }

    @Test
    void aWebClientBuiltWithoutBootsBuilderIsThrottledOnlyWithTheConnectorBean() {
        this.runner.run((context) -> {
            ClientHttpConnector connector = context.getBean(ClientHttpConnector.class);
            assertThat(connector).isInstanceOf(ThrottlingClientHttpConnector.class);
            WebClient plain = WebClient.builder().baseUrl(simulator.baseUrl()).build();
            WebClient optedIn = WebClient.builder().baseUrl(simulator.baseUrl()).clientConnector(connector).build();
            ThrottledClient.ThrottledModel model = model(context.getBean(LlmThrottleRegistry.class));
            messages(plain, 100, false).header("x-api-key", "test-key").retrieve().toBodilessEntity().block(TIMEOUT);
            assertThat(model.getTotals().snapshot().calls()).isZero();
            messages(optedIn, 100, false).header("x-api-key", "test-key").retrieve().toBodilessEntity().block(TIMEOUT);
            assertThat(model.getTotals().snapshot().calls()).isOne();
            assertThat(simulator.simulator().stats(MODEL).attempts()).isEqualTo(2);
        });
    }

    @Test
    void waitingCallsHoldNoThreadAndLeaveTheQueueWhenCancelled() {
        this.runner
            .withPropertyValues("llm.throttle.clients.anthropic.models." + MODEL + ".requests-per-minute=1",
                    "llm.throttle.queue.capacity=1000", "llm.throttle.queue.max-wait=10m")
            .run((context) -> {
                WebClient client = context.getBean("anthropicWebClient", WebClient.class);
                ThrottledClient.ThrottledModel model = model(context.getBean(LlmThrottleRegistry.class));
                // the first call takes the minute's one request, and starts the
                // connector's threads
                messages(client, 100, false).retrieve().toBodilessEntity().block(TIMEOUT);
                int threadsBefore = Thread.activeCount();
                List<Disposable> waiting = new ArrayList<>();
                for (int i = 0; i < 200; i++) {
                    waiting.add(messages(client, 100, false).retrieve().toBodilessEntity().subscribe());
                }
                await().atMost(TIMEOUT).until(() -> model.getLimiter().state().queued().total() == 200);
                assertThat(Thread.activeCount()).isLessThan(threadsBefore + 10);
                waiting.forEach(Disposable::dispose);
                await().atMost(TIMEOUT).until(() -> model.getLimiter().state().queued().total() == 0);
                assertThat(model.getLimiter().state().inFlight()).isZero();
                assertThat(simulator.simulator().stats(MODEL).attempts()).isOne();
            });
    }

    private static ThrottledClient.ThrottledModel model(LlmThrottleRegistry registry) {
        ThrottledClient client = registry.getClient("anthropic");
        assertThat(client).isNotNull();
        return client.model(MODEL);
    }

    private static WebClient.RequestHeadersSpec<?> messages(WebClient client, int maxTokens, boolean stream) {
        return client.post()
            .uri("/v1/messages")
            .contentType(MediaType.APPLICATION_JSON)
            .bodyValue(body(maxTokens, stream));
    }

    private static String body(int maxTokens, boolean stream) {
        return "{\"model\":\"" + MODEL + "\",\"max_tokens\":" + maxTokens + ",\"stream\":" + stream
                + ",\"messages\":[{\"role\":\"user\",\"content\":\"Say hello\"}]}";
    }

}
