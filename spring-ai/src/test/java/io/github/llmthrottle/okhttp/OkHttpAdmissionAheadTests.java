package io.github.llmthrottle.okhttp;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
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
import okhttp3.Interceptor;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okio.Buffer;
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
 * Enqueued calls ({@code Call.enqueue}) on a dispatcher whose executor is given the
 * registry ({@link DispatcherExecutor}, as Spring AI's models get it): each waits for its
 * first admission as a queue entry, holding no thread, and runs on the application's
 * executor only once admitted, in the order of its priority; nothing an admission holds
 * outlives a call that does not use it.
 */
class OkHttpAdmissionAheadTests {

    private static final MediaType JSON = MediaType.get("application/json");

    private static final String MODEL = "claude-opus-4-7";

    private static final String SUCCESS = """
            {"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"Hi"}],
             "model":"claude-opus-4-7","stop_reason":"end_turn","usage":{"input_tokens":9,"output_tokens":2}}""";

    private final WireMockServer server = new WireMockServer(wireMockConfig().dynamicPort());

    /** The application's executor: two threads, whose busy ones are counted. */
    private final CountingExecutor application = new CountingExecutor(Executors.newFixedThreadPool(2, (task) -> {
        Thread thread = new Thread(task, "app");
        thread.setDaemon(true);
        return thread;
    }));

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.server.start();
        this.server.stubFor(post(urlEqualTo("/v1/messages"))
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
        this.application.delegate.shutdownNow();
    }

    /**
     * 50 calls held back by the model's limits all wait in the admission queue with no
     * thread of the application's executor (2 threads) busy, and when room appears the
     * realtime call enqueued last is sent first: a FIFO executor would have let the 49
     * normal calls ahead of it.
     */
    @Test
    void fiftyWaitingCallsHoldNoThreadAndARealtimeCallEnqueuedLastIsSentFirst() {
        this.runner.run((context) -> {
            List<String> sent = new CopyOnWriteArrayList<>();
            OkHttpClient client = client(context, this.application).newBuilder()
                .addNetworkInterceptor(recording(sent))
                .build();
            HeldSlot held = HeldSlot.take(limiter(context));
            EnqueuedOutcomes outcomes = new EnqueuedOutcomes(50);
            for (int i = 0; i < 49; i++) {
                client.newCall(messages("normal-" + i)).enqueue(outcomes);
            }
            client
                .newCall(messages("realtime").newBuilder()
                    .header(OkHttpThrottlingInterceptor.PRIORITY_HEADER, "REALTIME")
                    .build())
                .enqueue(outcomes);
            await().atMost(Duration.ofSeconds(60)).until(() -> limiter(context).state().queued().total() == 50);
            assertThat(EnqueuedOutcomes.threadsWaitingForAdmission()).isEmpty();
            assertThat(this.application.busy.get()).isZero();
            held.release();
            outcomes.await();
            assertThat(outcomes.codes).hasSize(50).containsOnly(200);
            assertThat(sent).hasSize(50).first().isEqualTo("realtime");
            assertThat(this.application.mostBusy.get()).isBetween(1, 2);
            assertThat(limiter(context).state().queued().total()).isZero();
            assertThat(limiter(context).state().inFlight()).isZero();
            assertThat(model(context).getTotals().snapshot().succeeded()).isEqualTo(50);
            assertThat(EnqueuedAdmissions.heldCount()).isZero();
        });
    }

    /**
     * A call cancelled while it waits for admission ahead of its run leaves the queue,
     * its callback gets the failure, and nothing stays held, queued or in flight.
     */
    @Test
    void cancellingAWaitingCallLeavesNothingBehind() {
        this.runner.run((context) -> {
            OkHttpClient client = client(context, this.application);
            HeldSlot held = HeldSlot.take(limiter(context));
            EnqueuedOutcomes outcomes = new EnqueuedOutcomes(1);
            Call call = client.newCall(messages("cancelled"));
            call.enqueue(outcomes);
            await().atMost(Duration.ofSeconds(20)).until(() -> limiter(context).state().queued().total() == 1);
            assertThat(EnqueuedOutcomes.threadsWaitingForAdmission()).isEmpty();
            call.cancel();
            outcomes.await();
            assertThat(outcomes.failures).singleElement().isInstanceOf(IOException.class);
            assertThat(limiter(context).state().queued().total()).isZero();
            held.release();
            assertThat(limiter(context).state().inFlight()).isZero();
            assertThat(EnqueuedAdmissions.heldCount()).isZero();
            this.server.verify(0, postRequestedFor(urlEqualTo("/v1/messages")));
            EnqueuedOutcomes next = new EnqueuedOutcomes(1);
            client.newCall(messages("next")).enqueue(next);
            next.await();
            assertThat(next.codes).containsExactly(200);
            assertThat(limiter(context).state().inFlight()).isZero();
        });
    }

    /**
     * A call refused at admission (no wait allowed while the slot is taken) fails through
     * its callback with the refusal as the cause.
     */
    @Test
    void aCallRefusedAtAdmissionFailsThroughItsCallback() {
        this.runner.run((context) -> {
            OkHttpClient client = client(context, this.application);
            HeldSlot held = HeldSlot.take(limiter(context));
            EnqueuedOutcomes outcomes = new EnqueuedOutcomes(1);
            client
                .newCall(messages("impatient").newBuilder()
                    .header(OkHttpThrottlingInterceptor.PRIORITY_HEADER, "NORMAL")
                    .header(OkHttpThrottlingInterceptor.MAX_WAIT_HEADER, "PT0S")
                    .build())
                .enqueue(outcomes);
            outcomes.await();
            assertThat(outcomes.failures).singleElement()
                .extracting(Throwable::getCause)
                .isInstanceOf(LlmThrottleException.class);
            held.release();
            assertThat(limiter(context).state().queued().total()).isZero();
            assertThat(limiter(context).state().inFlight()).isZero();
            this.server.verify(0, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    /**
     * An admission whose call never reaches the interceptor (a client without it) is
     * given back when the call ends.
     */
    @Test
    void anAdmissionTheInterceptorNeverTakesIsGivenBack() {
        this.runner.run((context) -> {
            OkHttpClient client = new OkHttpClient.Builder()
                .dispatcher(new Dispatcher(
                        new DispatcherExecutor(this.application, context.getBean(LlmThrottleRegistry.class))))
                .build();
            EnqueuedOutcomes outcomes = new EnqueuedOutcomes(1);
            client.newCall(messages("unthrottled")).enqueue(outcomes);
            outcomes.await();
            assertThat(outcomes.codes).containsExactly(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> limiter(context).state().inFlight() == 0);
            assertThat(EnqueuedAdmissions.heldCount()).isZero();
        });
    }

    /**
     * An admission whose request changed on the way (an interceptor before llm-throttle's
     * rewrote the body) is given back, and the call waits for its own.
     */
    @Test
    void anAdmissionForAnotherRequestIsGivenBack() {
        this.runner.run((context) -> {
            OkHttpClient client = new OkHttpClient.Builder()
                .dispatcher(new Dispatcher(
                        new DispatcherExecutor(this.application, context.getBean(LlmThrottleRegistry.class))))
                .addInterceptor((chain) -> chain.proceed(messages("rewritten")))
                .addInterceptor(context.getBean(OkHttpThrottlingInterceptor.class))
                .build();
            EnqueuedOutcomes outcomes = new EnqueuedOutcomes(1);
            client.newCall(messages("original")).enqueue(outcomes);
            outcomes.await();
            assertThat(outcomes.codes).containsExactly(200);
            assertThat(limiter(context).state().inFlight()).isZero();
            assertThat(model(context).getTotals().snapshot().attempts()).isEqualTo(1);
        });
    }

    /**
     * An admitted call the application's executor refuses fails through its callback,
     * unsent, and its admission is given back.
     */
    @Test
    void anAdmittedCallTheExecutorRefusesFailsAndGivesItsAdmissionBack() {
        this.runner.run((context) -> {
            AtomicInteger refused = new AtomicInteger();
            Executor refusing = (task) -> {
                refused.incrementAndGet();
                throw new RejectedExecutionException("full");
            };
            OkHttpClient client = client(context, refusing);
            EnqueuedOutcomes outcomes = new EnqueuedOutcomes(1);
            client.newCall(messages("refused")).enqueue(outcomes);
            outcomes.await();
            assertThat(refused).hasValue(1);
            assertThat(outcomes.failures).singleElement().isInstanceOf(IOException.class);
            assertThat(limiter(context).state().inFlight()).isZero();
            assertThat(EnqueuedAdmissions.heldCount()).isZero();
            this.server.verify(0, postRequestedFor(urlEqualTo("/v1/messages")));
        });
    }

    private static OkHttpClient client(ApplicationContext context, Executor executor) {
        return new OkHttpClient.Builder()
            .dispatcher(new Dispatcher(new DispatcherExecutor(executor, context.getBean(LlmThrottleRegistry.class))))
            .addInterceptor(context.getBean(OkHttpThrottlingInterceptor.class))
            .build();
    }

    /** Records the text of each request as it is sent. */
    private static Interceptor recording(List<String> sent) {
        return (chain) -> {
            Buffer body = new Buffer();
            chain.request().body().writeTo(body);
            String text = body.readUtf8();
            int start = text.indexOf("\"content\":\"") + "\"content\":\"".length();
            sent.add(text.substring(start, text.indexOf('"', start)));
            return chain.proceed(chain.request());
        };
    }

    private Request messages(String content) {
        String body = """
                {"model":"claude-opus-4-7","max_tokens":64,"messages":[{"role":"user","content":"%s"}]}"""
            .formatted(content);
        return new Request.Builder().url(this.server.baseUrl() + "/v1/messages")
            .post(RequestBody.create(body, JSON))
            .build();
    }

    private static ThrottledModel model(ApplicationContext context) {
        return context.getBean(LlmThrottleRegistry.class).getClient("anthropic").model(MODEL);
    }

    private static ModelLimiter limiter(ApplicationContext context) {
        return model(context).getLimiter();
    }

    /** An executor that counts its busy threads, and the most it had. */
    private static final class CountingExecutor implements Executor {

        private final ExecutorService delegate;

        private final AtomicInteger busy = new AtomicInteger();

        private final AtomicInteger mostBusy = new AtomicInteger();

        CountingExecutor(ExecutorService delegate) {
            this.delegate = delegate;
        }

        @Override
        public void execute(Runnable task) {
            this.delegate.execute(() -> {
                this.mostBusy.accumulateAndGet(this.busy.incrementAndGet(), Math::max);
                try {
                    task.run();
                }
                finally {
                    this.busy.decrementAndGet();
                }
            });
        }

    }

}
