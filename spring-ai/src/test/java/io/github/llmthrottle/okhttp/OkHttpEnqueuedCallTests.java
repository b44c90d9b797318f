package io.github.llmthrottle.okhttp;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import com.github.tomakehurst.wiremock.WireMockServer;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.autoconfigure.LlmThrottleAutoConfiguration;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottledClient.ThrottledModel;
import io.github.llmthrottle.limit.HeldSlot;
import io.github.llmthrottle.limit.ModelLimiter;
import io.github.llmthrottle.springai.autoconfigure.LlmThrottleSpringAiAutoConfiguration;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.Dispatcher;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.http.client.autoconfigure.HttpClientAutoConfiguration;
import org.springframework.boot.restclient.autoconfigure.RestClientAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.wireMockConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Enqueued calls ({@code Call.enqueue}) through the OkHttp interceptor, on a client whose
 * dispatcher runs them on the application's executor ({@link DispatcherExecutor}) without
 * the registry, so that they wait for admission as they run: where they wait, what the
 * dispatcher's limits become, and what a cancellation leaves behind (with the registry,
 * as Spring AI's models have it, see {@link OkHttpAdmissionAheadTests}).
 */
class OkHttpEnqueuedCallTests {

    private static final MediaType JSON = MediaType.get("application/json");

    private static final String MODEL = "claude-opus-4-7";

    private static final String BODY = """
            {"model":"claude-opus-4-7","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]}""";

    private static final String SUCCESS = """
            {"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],
             "model":"claude-opus-4-7","stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":2}}""";

    private final WireMockServer server = new WireMockServer(wireMockConfig().dynamicPort());

    private final WireMockServer otherServer = new WireMockServer(wireMockConfig().dynamicPort());

    /** The threads of the application's executor. */
    private final Set<Thread> applicationThreads = ConcurrentHashMap.newKeySet();

    private final ExecutorService application = Executors.newCachedThreadPool(threads("app-"));

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.server.start();
        this.otherServer.start();
        this.server.stubFor(post(urlEqualTo("/v1/messages"))
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(SUCCESS)));
        this.otherServer.stubFor(post(urlEqualTo("/v1/messages"))
            .willReturn(aResponse().withHeader("Content-Type", "application/json").withBody(SUCCESS)));
        this.runner = new ApplicationContextRunner()
            .withConfiguration(
                    AutoConfigurations.of(HttpClientAutoConfiguration.class, RestClientAutoConfiguration.class,
                            LlmThrottleAutoConfiguration.class, LlmThrottleSpringAiAutoConfiguration.class))
            .withPropertyValues("llm.throttle.clients.anthropic.provider=anthropic",
                    "llm.throttle.clients.anthropic.base-url=http://localhost:" + this.server.port(),
                    "llm.throttle.clients.anthropic.models." + MODEL + ".max-concurrency=1",
                    "llm.throttle.retry.delay=1ms", "llm.throttle.retry.max-delay=5ms");
    }

    @AfterEach
    void stop() {
        this.server.stop();
        this.otherServer.stop();
        this.application.shutdownNow();
    }

    @Test
    void anEnqueuedCallWaitsForAdmissionOnTheApplicationsExecutorNotOnOkHttpsOrTheCommonPool() {
        this.runner.run((context) -> {
            OkHttpClient client = client(context, this.application);
            // the only slot is held here until the call waits, however slow the machine
            HeldSlot held = HeldSlot.take(limiter(context));
            EnqueuedOutcomes outcomes = new EnqueuedOutcomes(1);
            client.newCall(messages(this.server)).enqueue(outcomes);
            await().atMost(Duration.ofSeconds(20)).until(() -> limiter(context).state().queued().total() == 1);
            List<Thread> waiting = EnqueuedOutcomes.threadsWaitingForAdmission();
            assertThat(waiting).hasSize(1).allMatch(this.applicationThreads::contains);
            assertThat(waiting).noneMatch((thread) -> thread.getName().startsWith("OkHttp Dispatcher")
                    || thread.getName().startsWith("ForkJoinPool"));
            held.release();
            outcomes.await();
            assertThat(outcomes.codes).containsExactly(200);
            assertThat(limiter(context).state().inFlight()).isZero();
        });
    }

    /**
     * 200 calls enqueued at once to a model that runs one at a time all wait in the
     * admission queue, each on a thread of the application's executor and none on
     * OkHttp's or the common pool's, and all of them are sent, one after the other,
     * leaving nothing queued or in flight.
     */
    @Test
    void twoHundredEnqueuedCallsAtAConcurrencyOfOneWaitOnTheApplicationsExecutorAndAllComplete() {
        this.runner.run((context) -> {
            OkHttpClient client = client(context, this.application);
            HeldSlot held = HeldSlot.take(limiter(context));
            EnqueuedOutcomes outcomes = new EnqueuedOutcomes(200);
            for (int i = 0; i < 200; i++) {
                client.newCall(messages(this.server)).enqueue(outcomes);
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> limiter(context).state().queued().total() == 200);
            List<Thread> waiting = EnqueuedOutcomes.threadsWaitingForAdmission();
            assertThat(waiting).hasSize(200).allMatch(this.applicationThreads::contains);
            held.release();
            outcomes.await();
            assertThat(outcomes.codes).hasSize(200).containsOnly(200);
            assertThat(outcomes.failures).isEmpty();
            assertThat(limiter(context).state().queued().total()).isZero();
            assertThat(limiter(context).state().inFlight()).isZero();
            this.server.verify(200, postRequestedFor(urlEqualTo("/v1/messages")));
            assertThat(model(context).getTotals().snapshot().succeeded()).isEqualTo(200);
        });
    }

    /**
     * Only a dispatcher that runs an enqueued call to a throttled host has its limits
     * raised (the admission queue holds those calls back instead); enqueued calls to
     * another host leave them as they are.
     */
    @Test
    void enqueuedCallsToAnotherHostKeepTheDispatchersLimits() {
        this.runner.run((context) -> {
            OkHttpClient other = client(context, this.application);
            EnqueuedOutcomes outcomes = new EnqueuedOutcomes(10);
            for (int i = 0; i < 10; i++) {
                other.newCall(messages(this.otherServer)).enqueue(outcomes);
            }
            outcomes.await();
            assertThat(outcomes.codes).hasSize(10).containsOnly(200);
            assertThat(other.dispatcher().getMaxRequests()).isEqualTo(64);
            assertThat(other.dispatcher().getMaxRequestsPerHost()).isEqualTo(5);
            OkHttpClient throttled = client(context, this.application);
            EnqueuedOutcomes throttledOutcome = new EnqueuedOutcomes(1);
            throttled.newCall(messages(this.server)).enqueue(throttledOutcome);
            throttledOutcome.await();
            assertThat(throttled.dispatcher().getMaxRequestsPerHost()).isGreaterThan(5);
            assertThat(other.dispatcher().getMaxRequests()).isEqualTo(64);
            assertThat(other.dispatcher().getMaxRequestsPerHost()).isEqualTo(5);
        });
    }

    /**
     * An enqueued call cancelled while it waits for admission leaves the queue, its
     * callback gets the failure, it is never sent, and the thread that waited goes on
     * without the interrupt that ended the wait.
     */
    @Test
    void cancellingAnEnqueuedCallWhileItWaitsTakesItOutOfTheQueueAndFailsItsCallback() {
        ExecutorService single = Executors.newSingleThreadExecutor(threads("single-"));
        try {
            this.runner.run((context) -> {
                OkHttpClient client = client(context, single);
                HeldSlot held = HeldSlot.take(limiter(context));
                EnqueuedOutcomes outcomes = new EnqueuedOutcomes(1);
                Call call = client.newCall(messages(this.server));
                call.enqueue(outcomes);
                await().atMost(Duration.ofSeconds(20)).until(() -> limiter(context).state().queued().total() == 1);
                call.cancel();
                outcomes.await();
                assertThat(outcomes.failures).singleElement().isInstanceOf(IOException.class);
                assertThat(limiter(context).state().queued().total()).isZero();
                // the callback runs on the thread that waited, right after the wait
                assertThat(outcomes.interruptedOnFailure).containsExactly(false);
                held.release();
                this.server.verify(0, postRequestedFor(urlEqualTo("/v1/messages")));
                EnqueuedOutcomes next = new EnqueuedOutcomes(1);
                client.newCall(messages(this.server)).enqueue(next);
                next.await();
                assertThat(next.codes).containsExactly(200);
                assertThat(limiter(context).state().inFlight()).isZero();
                this.server.verify(1, postRequestedFor(urlEqualTo("/v1/messages")));
                assertThat(model(context).getTotals().snapshot().attempts()).isEqualTo(1);
            });
        }
        finally {
            single.shutdownNow();
        }
    }

    /**
     * A call executed from an enqueued call's callback, on the same thread, is an
     * executed call: its throttling failure reaches it as itself, not as an I/O error.
     */
    @Test
    void aCallExecutedFromAnEnqueuedCallsCallbackIsToldFromIt() {
        this.runner.run((context) -> {
            OkHttpClient client = client(context, this.application);
            HeldSlot held = HeldSlot.take(limiter(context));
            CompletableFuture<Throwable> executed = new CompletableFuture<>();
            client.newCall(messages(this.otherServer)).enqueue(new Callback() {

                @Override
                public void onResponse(Call call, Response response) {
                    response.close();
                    Request impatient = messages(this.server()).newBuilder()
                        .header(OkHttpThrottlingInterceptor.MAX_WAIT_HEADER, "PT0S")
                        .header(OkHttpThrottlingInterceptor.PRIORITY_HEADER, "NORMAL")
                        .build();
                    try (Response inner = client.newCall(impatient).execute()) {
                        executed.completeExceptionally(new AssertionError("Admitted: " + inner.code()));
                    }
                    catch (Throwable ex) {
                        executed.complete(ex);
                    }
                }

                @Override
                public void onFailure(Call call, IOException ex) {
                    executed.completeExceptionally(ex);
                }

                private WireMockServer server() {
                    return OkHttpEnqueuedCallTests.this.server;
                }

            });
            assertThat(executed.get(20, TimeUnit.SECONDS)).isInstanceOf(LlmThrottleException.class);
            held.release();
        });
    }

    private OkHttpClient client(ApplicationContext context, ExecutorService executor) {
        return new OkHttpClient.Builder().dispatcher(new Dispatcher(new DispatcherExecutor(executor)))
            .addInterceptor(context.getBean(OkHttpThrottlingInterceptor.class))
            .build();
    }

    private ThreadFactory threads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return (task) -> {
            Thread thread = new Thread(task, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            this.applicationThreads.add(thread);
            return thread;
        };
    }

    private static Request messages(WireMockServer server) {
        return new Request.Builder().url(server.baseUrl() + "/v1/messages")
            .post(RequestBody.create(BODY, JSON))
            .build();
    }

    private static ThrottledModel model(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("anthropic").model(MODEL);
    }

    private static ModelLimiter limiter(ApplicationContext context) {
        return model(context).getLimiter();
    }

}
