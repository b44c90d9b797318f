package io.github.llmthrottle.annotation;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.ThrottleContextAccessor;
import io.github.llmthrottle.Throttled;
import io.github.llmthrottle.annotation.ThrottledRoutingTests.RecordingObserver;
import io.github.llmthrottle.test.Fault;
import io.github.llmthrottle.test.LlmSimulator;
import io.github.llmthrottle.time.FakeClock;
import io.micrometer.context.ContextSnapshotFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.web.client.HttpClientErrorException;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @Throttled} methods returning a {@code Mono}, a {@code Flux}, a
 * {@code CompletableFuture} or a {@code CompletionStage}, against the testkit's simulated
 * Anthropic API: the method makes its call when what it returned is subscribed (or on an
 * executor), on another thread, and is routed to the fallback model when that call fails
 * for a throttling reason.
 */
class ThrottledAsyncRoutingTests {

    private static final String OPUS = "claude-opus-4-7";

    private static final String SONNET = "claude-sonnet-4-5";

    private static final Instant START = Instant.parse("2026-03-02T09:00:00Z");

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private FakeClock clock;

    private LlmSimulator simulator;

    private ExecutorService executor;

    private ApplicationContextRunner runner;

    @BeforeEach
    void start() {
        this.clock = new FakeClock(START).advancingWaits();
        this.simulator = LlmSimulator.builder().noLatency().clock(this.clock).start();
        this.executor = Executors.newFixedThreadPool(2, (task) -> new Thread(task, "answers-executor"));
        this.runner = ThrottledRoutingTests.runner(this.simulator, this.clock)
            .withUserConfiguration(AnswersConfiguration.class)
            .withBean(ExecutorService.class, () -> this.executor);
    }

    @AfterEach
    void stop() throws InterruptedException {
        this.simulator.close();
        this.executor.shutdownNow();
        assertThat(this.executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void monoFailingWithAThrottlingFailureIsRoutedToTheNextModel() {
        this.simulator.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            Answer answer = answers(context).mono(new Question("acme", "Hello")).block(TIMEOUT);
            assertThat(answer).isNotNull();
            assertThat(answer.model()).isEqualTo(SONNET);
            assertThat(answer.attempt()).isEqualTo(1);
            assertThat(answer.body()).contains("\"model\":\"" + SONNET + "\"");
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
            assertThat(this.simulator.stats(SONNET).successes()).isEqualTo(1);
            assertThat(observer(context).fallbacks).singleElement()
                .satisfies((fallback) -> assertThat(fallback).startsWith(OPUS + "->" + SONNET + ":")
                    .contains(RetriesExhaustedException.class.getSimpleName()));
            assertThat(ThrottleContext.current()).isNull();
        });
    }

    @Test
    void theContextReachesTheCallInsideDeferContextualOnASchedulerThread() {
        this.runner.run((context) -> {
            Answer answer = answers(context).mono(new Question("acme", "Hello")).block(TIMEOUT);
            assertThat(answer).isNotNull();
            assertThat(answer.model()).isEqualTo(OPUS);
            assertThat(answer.tenant()).isEqualTo("acme");
            assertThat(answer.thread()).startsWith("boundedElastic");
            // the call made on that thread was admitted with the invocation's priority
            assertThat(observer(context).admitted).containsExactly(OPUS + ":REALTIME");
        });
    }

    @Test
    void aMonoIsRoutedAgainForEachSubscription() {
        this.runner.run((context) -> {
            Mono<Answer> mono = answers(context).mono(new Question("acme", "Hello"));
            assertThat(mono.block(TIMEOUT)).extracting(Answer::model).isEqualTo(OPUS);
            this.simulator.outage(OPUS, Duration.ofMinutes(10));
            assertThat(mono.block(TIMEOUT)).extracting(Answer::model).isEqualTo(SONNET);
            assertThat(answers(context).invocations()).containsExactly(OPUS, OPUS, SONNET);
        });
    }

    @Test
    void aBadRequestFailsTheMonoAndTheNextModelIsNeverCalled() {
        this.simulator.script(OPUS, Fault.status(400));
        this.runner.run((context) -> {
            Mono<Answer> mono = answers(context).mono(new Question("acme", "Hello"));
            assertThatExceptionOfType(HttpClientErrorException.BadRequest.class).isThrownBy(() -> mono.block(TIMEOUT));
            assertThat(this.simulator.stats(SONNET).attempts()).isZero();
            assertThat(observer(context).fallbacks).isEmpty();
        });
    }

    @Test
    void whenEveryModelFailsTheMonoFallbackMethodGetsTheCause() {
        this.simulator.outage(LlmSimulator.ANY_MODEL, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            Answer answer = answers(context).mono(new Question("acme", "Hello")).block(TIMEOUT);
            assertThat(answer).isNotNull();
            assertThat(answer.model()).isEqualTo("cache");
            assertThat(answer.cause()).isInstanceOf(RetriesExhaustedException.class);
            assertThat(((LlmThrottleException) answer.cause()).getModel()).isEqualTo(SONNET);
            assertThat(this.simulator.stats(SONNET).attempts()).isEqualTo(3);
        });
    }

    @Test
    void withoutFallbackMethodTheMonoFailsWithTheLastFailure() {
        this.simulator.outage(LlmSimulator.ANY_MODEL, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            Mono<Answer> mono = answers(context).monoWithoutFallback("Hello");
            assertThatExceptionOfType(RetriesExhaustedException.class).isThrownBy(() -> mono.block(TIMEOUT))
                .satisfies((ex) -> assertThat(ex.getModel()).isEqualTo(SONNET));
        });
    }

    @Test
    void aSaturatedModelIsSkippedBeforeTheMethodRuns() {
        this.runner.withPropertyValues("llm.throttle.clients.anthropic.models." + OPUS + ".requests-per-minute=1")
            .run((context) -> {
                AsyncAnswers answers = answers(context);
                assertThat(answers.mono(new Question("acme", "one")).block(TIMEOUT)).extracting(Answer::model)
                    .isEqualTo(OPUS);
                assertThat(answers.mono(new Question("acme", "two")).block(TIMEOUT)).extracting(Answer::model)
                    .isEqualTo(SONNET);
                assertThat(answers.invocations()).containsExactly(OPUS, SONNET);
                assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(1);
                assertThat(observer(context).rejections).containsExactly(OPUS + ":max_wait");
            });
    }

    @Test
    void fluxFailingBeforeItsFirstElementIsRoutedToTheNextModel() {
        this.simulator.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            assertThat(answers(context).flux("Hello").collectList().block(TIMEOUT)).containsExactly("answer:" + SONNET,
                    "done:" + SONNET);
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
            assertThat(answers(context).invocations()).containsExactly(OPUS, SONNET);
        });
    }

    @Test
    void fluxFailingAfterAnElementPassesTheErrorThroughUnchanged() {
        this.simulator.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            List<String> received = new CopyOnWriteArrayList<>();
            Flux<String> flux = answers(context).fluxFailingLate("Hello").doOnNext(received::add);
            assertThatExceptionOfType(RetriesExhaustedException.class).isThrownBy(() -> flux.blockLast(TIMEOUT))
                .satisfies((ex) -> assertThat(ex.getModel()).isEqualTo(OPUS));
            assertThat(received).containsExactly("first:" + OPUS);
            assertThat(this.simulator.stats(SONNET).attempts()).isZero();
            assertThat(answers(context).invocations()).containsExactly(OPUS);
            assertThat(observer(context).fallbacks).isEmpty();
        });
    }

    @Test
    void completableFutureFailingWithAThrottlingFailureIsRoutedToTheNextModel() {
        this.simulator.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            Answer answer = answers(context).future(new Question("acme", "Hello")).get(30, TimeUnit.SECONDS);
            assertThat(answer.model()).isEqualTo(SONNET);
            assertThat(answer.attempt()).isEqualTo(1);
            // read from ThrottleContext.current() inside the supplier, on the executor
            assertThat(answer.tenant()).isEqualTo("acme");
            assertThat(answer.thread()).isEqualTo("answers-executor");
            assertThat(this.simulator.stats(OPUS).attempts()).isEqualTo(3);
            assertThat(observer(context).admitted).containsExactly(OPUS + ":REALTIME", OPUS + ":REALTIME",
                    OPUS + ":REALTIME", SONNET + ":REALTIME");
            assertThat(ThrottleContext.current()).isNull();
        });
    }

    @Test
    void completionStageFailingWithAThrottlingFailureIsRoutedToTheNextModel() {
        this.simulator.outage(OPUS, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            Answer answer = answers(context).stage(new Question("acme", "Hello"))
                .toCompletableFuture()
                .get(30, TimeUnit.SECONDS);
            assertThat(answer.model()).isEqualTo(SONNET);
            assertThat(answers(context).invocations()).containsExactly(OPUS, SONNET);
        });
    }

    @Test
    void whenEveryModelFailsTheFutureFallbackMethodGetsTheCause() {
        this.simulator.outage(LlmSimulator.ANY_MODEL, Duration.ofMinutes(10));
        this.runner.run((context) -> {
            Answer answer = answers(context).future(new Question("acme", "Hello")).get(30, TimeUnit.SECONDS);
            assertThat(answer.model()).isEqualTo("cache");
            assertThat(answer.cause()).isInstanceOf(RetriesExhaustedException.class);
        });
    }

    @Test
    void aBadRequestFailsTheStageWithTheProvidersError() {
        this.simulator.script(OPUS, Fault.status(400));
        this.runner.run((context) -> {
            CompletableFuture<Answer> future = answers(context).stage(new Question("acme", "Hello"))
                .toCompletableFuture();
            assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> future.get(30, TimeUnit.SECONDS))
                .withCauseInstanceOf(HttpClientErrorException.BadRequest.class);
            assertThat(this.simulator.stats(SONNET).attempts()).isZero();
        });
    }

    @Test
    void cancellingTheSubscriptionCancelsTheModelsPublisherAndTriesNoOtherModel() {
        this.runner.run((context) -> {
            Hanging hanging = context.getBean(Hanging.class);
            Disposable subscription = hanging.stream("Hello").subscribe();
            assertThat(hanging.subscribed()).hasValue(1);
            subscription.dispose();
            assertThat(hanging.cancelled()).hasValue(1);
            assertThat(hanging.invocations()).hasValue(1);
            assertThat(this.simulator.stats(OPUS).attempts()).isZero();
        });
    }

    @Test
    void cancellingTheCallersFutureCancelsTheModelsFutureAndTriesNoOtherModel() {
        this.runner.run((context) -> {
            Hanging hanging = context.getBean(Hanging.class);
            CompletableFuture<String> future = hanging.future("Hello");
            assertThat(future.cancel(true)).isTrue();
            assertThat(hanging.futures()).singleElement().satisfies((inFlight) -> {
                assertThat(inFlight.isCancelled()).isTrue();
                // a throttling failure arriving now moves nowhere
                assertThat(inFlight.completeExceptionally(circuitOpen())).isFalse();
            });
            assertThat(hanging.invocations()).hasValue(1);
        });
    }

    @Test
    void aThrottlingFailureOfTheFutureRunsTheMethodAgainForTheNextModel() {
        this.runner.run((context) -> {
            Hanging hanging = context.getBean(Hanging.class);
            CompletableFuture<String> future = hanging.future("Hello");
            hanging.futures().get(0).completeExceptionally(circuitOpen());
            assertThat(hanging.invocations()).hasValue(2);
            assertThat(future).isNotDone();
            hanging.futures().get(1).complete("answered");
            assertThat(future).isCompletedWithValue("answered");
        });
    }

    private static AsyncAnswers answers(AssertableApplicationContext context) {
        return context.getBean(AsyncAnswers.class);
    }

    private static CircuitOpenException circuitOpen() {
        return new CircuitOpenException("anthropic", OPUS, Duration.ofSeconds(5));
    }

    private static RecordingObserver observer(AssertableApplicationContext context) {
        return context.getBean(RecordingObserver.class);
    }

    record Question(String tenant, String text) {
    }

    record Answer(String model, int attempt, @Nullable String tenant, @Nullable String body, String thread,
            @Nullable Throwable cause) {
    }

    /**
     * A service whose methods make their call to the throttled RestClient after they
     * returned, on another thread, for the model they were routed to.
     */
    static class AsyncAnswers {

        private final List<String> invocations = new CopyOnWriteArrayList<>();

        private final RestClient restClient;

        private final ExecutorService executor;

        AsyncAnswers(RestClient restClient, ExecutorService executor) {
            this.restClient = restClient;
            this.executor = executor;
        }

        /**
         * The models the methods ran for, in order (read through the proxy, which has no
         * state of its own).
         * @return the models
         */
        public List<String> invocations() {
            return this.invocations;
        }

        /**
         * The context comes from the Reactor context; the RestClient reads the
         * thread-local one, opened here as Micrometer's automatic context propagation
         * would.
         */
        @Throttled(priority = Priority.REALTIME, tenant = "#question.tenant()", maxWait = "1s",
                fallbackMethod = "cachedMono")
        public Mono<Answer> mono(Question question) {
            this.invocations.add(ThrottleContext.currentModel());
            return answerWhenSubscribed();
        }

        @Throttled(maxWait = "1s")
        public Mono<Answer> monoWithoutFallback(String text) {
            return answerWhenSubscribed();
        }

        private Mono<Answer> answerWhenSubscribed() {
            return Mono.deferContextual((view) -> {
                ThrottleContext context = view.get(ThrottleContextAccessor.KEY);
                return Mono.fromCallable(() -> answer(context));
            }).subscribeOn(Schedulers.boundedElastic());
        }

        @Throttled(maxWait = "1s")
        public Flux<String> flux(String text) {
            this.invocations.add(ThrottleContext.currentModel());
            return Flux.deferContextual((view) -> {
                ThrottleContext context = view.get(ThrottleContextAccessor.KEY);
                return Mono.fromCallable(() -> "answer:" + answer(context).model())
                    .concatWith(Mono.just("done:" + context.getModel()));
            }).subscribeOn(Schedulers.boundedElastic());
        }

        @Throttled(maxWait = "1s")
        public Flux<String> fluxFailingLate(String text) {
            this.invocations.add(ThrottleContext.currentModel());
            return Flux.deferContextual((view) -> {
                ThrottleContext context = view.get(ThrottleContextAccessor.KEY);
                return Mono.just("first:" + context.getModel())
                    .concatWith(Mono.fromCallable(() -> answer(context).model()));
            }).subscribeOn(Schedulers.boundedElastic());
        }

        /**
         * The context is current on the thread that runs the method; the supplier runs on
         * an executor, which carries it in a context snapshot.
         */
        @Throttled(priority = Priority.REALTIME, tenant = "#question.tenant()", maxWait = "1s",
                fallbackMethod = "cachedFuture")
        public CompletableFuture<Answer> future(Question question) {
            this.invocations.add(ThrottleContext.currentModel());
            return CompletableFuture.supplyAsync(() -> answer(ThrottleContext.current()),
                    ContextSnapshotFactory.builder().build().captureAll().wrapExecutor(this.executor));
        }

        @Throttled(maxWait = "1s")
        public CompletionStage<Answer> stage(Question question) {
            this.invocations.add(ThrottleContext.currentModel());
            ThrottleContext context = ThrottleContext.current();
            return CompletableFuture.supplyAsync(() -> context, this.executor).thenApply(this::answer);
        }

        Mono<Answer> cachedMono(Question question, Throwable cause) {
            return Mono.just(new Answer("cache", -1, null, null, Thread.currentThread().getName(), cause));
        }

        CompletableFuture<Answer> cachedFuture(Question question, Throwable cause) {
            return CompletableFuture
                .completedFuture(new Answer("cache", -1, null, null, Thread.currentThread().getName(), cause));
        }

        private Answer answer(@Nullable ThrottleContext context) {
            assertThat(context).isNotNull();
            try (ThrottleContext.Scope scope = ThrottleContext.open(context)) {
                String body = ThrottledRoutingTests.call(this.restClient, context.getModel());
                return new Answer(context.getModel(), context.getAttempt(), context.getTenant(), body,
                        Thread.currentThread().getName(), null);
            }
        }

    }

    /**
     * A service whose publisher and futures complete only when a test says so.
     */
    static class Hanging {

        private final AtomicInteger invocations = new AtomicInteger();

        private final AtomicInteger subscribed = new AtomicInteger();

        private final AtomicInteger cancelled = new AtomicInteger();

        private final List<CompletableFuture<String>> futures = new CopyOnWriteArrayList<>();

        @Throttled(maxWait = "1s")
        public Flux<String> stream(String text) {
            this.invocations.incrementAndGet();
            return Flux.<String>never()
                .doOnSubscribe((subscription) -> this.subscribed.incrementAndGet())
                .doOnCancel(this.cancelled::incrementAndGet);
        }

        @Throttled(maxWait = "1s")
        public CompletableFuture<String> future(String text) {
            this.invocations.incrementAndGet();
            CompletableFuture<String> future = new CompletableFuture<>();
            this.futures.add(future);
            return future;
        }

        public AtomicInteger invocations() {
            return this.invocations;
        }

        public AtomicInteger subscribed() {
            return this.subscribed;
        }

        public AtomicInteger cancelled() {
            return this.cancelled;
        }

        public List<CompletableFuture<String>> futures() {
            return this.futures;
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class AnswersConfiguration {

        @Bean
        Hanging hanging() {
            return new Hanging();
        }

        @Bean
        AsyncAnswers asyncAnswers(@Qualifier("anthropicRestClient") RestClient restClient, ExecutorService executor) {
            return new AsyncAnswers(restClient, executor);
        }

        @Bean
        RecordingObserver recordingObserver() {
            return new RecordingObserver();
        }

    }

}
