package io.github.llmthrottle.routing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.llmthrottle.AdmissionTimeoutException;
import io.github.llmthrottle.CircuitOpenException;
import io.github.llmthrottle.ContextWindowExceededException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.RejectionReason;
import io.github.llmthrottle.RetriesExhaustedException;
import io.github.llmthrottle.ThrottleContext;
import io.github.llmthrottle.retry.Classification.Outcome;
import io.github.llmthrottle.time.FakeClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The router loop over fake candidates: preemptive skips, reactive fallback, what is
 * never routed around, and the context of each attempt.
 */
class ModelRouterTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final FakeCandidate opus = new FakeCandidate("opus");

    private final FakeCandidate sonnet = new FakeCandidate("sonnet");

    private final ModelRouter router = new ModelRouter("anthropic", List.of(this.opus, this.sonnet),
            Duration.ofSeconds(30));

    private final List<String> contexts = new ArrayList<>();

    /** The thread's context, which the router leaves as it is. */
    private @Nullable ThrottleContext threadContext;

    @Test
    void theFirstCandidateAnswersWhenItCan() throws Throwable {
        String answer = route(null, (context) -> context.getModel());
        assertThat(answer).isEqualTo("opus");
        assertThat(this.contexts).containsExactly("opus#0");
        assertThat(ThrottleContext.current()).isNull();
    }

    @Test
    void aThrottlingFailureMovesToTheNextCandidate() throws Throwable {
        String answer = route(null, (context) -> {
            if (context.getModel().equals("opus")) {
                throw new QueueFullException("anthropic", "opus", 10, null);
            }
            return context.getModel();
        });
        assertThat(answer).isEqualTo("sonnet");
        assertThat(this.contexts).containsExactly("opus#0", "sonnet#1");
        assertThat(this.opus.routedTo).containsExactly("sonnet");
        assertThat(ThrottleContext.current()).isNull();
    }

    @Test
    void aThrottlingFailureWrappedByTheHttpClientIsFound() throws Throwable {
        String answer = route(null, (context) -> {
            if (context.getModel().equals("opus")) {
                throw new IllegalStateException("I/O error", new RetriesExhaustedException("anthropic", "opus", 3,
                        "HTTP 529", null, new IOException("529")));
            }
            return context.getModel();
        });
        assertThat(answer).isEqualTo("sonnet");
    }

    @Test
    void stepsTakeTheRouteOneCandidateAtATime() {
        Route route = this.router.start(Priority.REALTIME, "acme", null);
        ThrottleContext first = route.next();
        assertThat(first).isNotNull();
        assertThat(first.getModel()).isEqualTo("opus");
        assertThat(first.getTenant()).isEqualTo("acme");
        assertThat(route.failed(new QueueFullException("anthropic", "opus", 10, null))).isTrue();
        assertThat(this.opus.routedTo).containsExactly("sonnet");
        ThrottleContext second = route.next();
        assertThat(second).isNotNull();
        assertThat(second.getModel()).isEqualTo("sonnet");
        assertThat(second.getAttempt()).isEqualTo(1);
        QueueFullException last = new QueueFullException("anthropic", "sonnet", 10, null);
        assertThat(route.failed(last)).isTrue();
        assertThat(route.next()).isNull();
        assertThat(route.failure()).isSameAs(last);
        assertThat(route.thrown()).isSameAs(last);
        assertThat(ThrottleContext.current()).isNull();
    }

    @Test
    void aStepSkipsACandidateThatCouldNotAdmitTheCall() {
        this.opus.wait = null;
        Route route = this.router.start(Priority.NORMAL, null, Duration.ofSeconds(1));
        ThrottleContext context = route.next();
        assertThat(context).isNotNull();
        assertThat(context.getModel()).isEqualTo("sonnet");
        assertThat(this.opus.rejections).singleElement().isInstanceOf(AdmissionTimeoutException.class);
        assertThat(this.opus.routedTo).containsExactly("sonnet");
    }

    @Test
    void aStepDoesNotMoveOnAfterAFailureThatIsNotThrottling() {
        Route route = this.router.start(Priority.NORMAL, null, null);
        assertThat(route.next()).isNotNull();
        assertThat(route.failed(new UncheckedIOException(new IOException("boom")))).isFalse();
        assertThat(this.opus.routedTo).isEmpty();
        assertThatExceptionOfType(IllegalStateException.class)
            .isThrownBy(() -> route.failed(new QueueFullException("anthropic", "opus", 10, null)));
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(route::failure);
    }

    @Test
    void otherFailuresPropagateAtOnce() {
        UncheckedIOException failure = new UncheckedIOException(new IOException("boom"));
        assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> route((ex) -> "recovered", (context) -> {
            throw failure;
        })).isSameAs(failure);
        assertThat(this.contexts).containsExactly("opus#0");
        assertThat(this.opus.routedTo).isEmpty();
    }

    @Test
    void throttlingFailuresOfAnotherClientAreNotRoutedAround() {
        assertThatExceptionOfType(QueueFullException.class).isThrownBy(() -> route(null, (context) -> {
            throw new QueueFullException("openai", "gpt", 10, null);
        }));
        assertThat(this.contexts).containsExactly("opus#0");
    }

    @Test
    void whenEveryCandidateFailsTheRecoveryGetsTheLastFailure() throws Throwable {
        List<LlmThrottleException> recovered = new ArrayList<>();
        String answer = route((failure) -> {
            recovered.add(failure);
            return "cached";
        }, (context) -> {
            throw new QueueFullException("anthropic", context.getModel(), 10, null);
        });
        assertThat(answer).isEqualTo("cached");
        assertThat(recovered).singleElement()
            .satisfies((failure) -> assertThat(failure.getModel()).isEqualTo("sonnet"));
        assertThat(this.sonnet.routedTo).isEmpty();
    }

    @Test
    void withoutRecoveryTheLastExceptionPropagatesAsThrown() {
        assertThatExceptionOfType(QueueFullException.class).isThrownBy(() -> route(null, (context) -> {
            throw new QueueFullException("anthropic", context.getModel(), 10, null);
        })).satisfies((ex) -> assertThat(ex.getModel()).isEqualTo("sonnet"));
    }

    @Test
    void aCandidateWhoseWaitExceedsMaxWaitIsSkippedWithoutACall() throws Throwable {
        this.opus.wait = Duration.ofSeconds(5);
        String answer = this.router.route(Priority.REALTIME, "acme", Duration.ofSeconds(1), this::record, null);
        assertThat(answer).isEqualTo("sonnet");
        assertThat(this.contexts).containsExactly("sonnet#1");
        assertThat(this.opus.rejections).singleElement().isInstanceOf(AdmissionTimeoutException.class);
        assertThat(this.opus.asked).containsExactly("REALTIME/acme/PT1S");
    }

    @Test
    void withoutMaxWaitTheDefaultDecides() throws Throwable {
        this.opus.wait = Duration.ofSeconds(5);
        assertThat(route(null, this::record)).isEqualTo("opus");
        this.opus.wait = Duration.ofSeconds(31);
        assertThat(route(null, this::record)).isEqualTo("sonnet");
    }

    @Test
    void aCandidateThatCanNeverBeAdmittedIsSkipped() throws Throwable {
        this.opus.wait = null;
        assertThat(route(null, this::record)).isEqualTo("sonnet");
    }

    @Test
    void aCandidateWithAnOpenCircuitIsSkipped() throws Throwable {
        for (int i = 0; i < 5; i++) {
            this.opus.circuit.acquire().record(Outcome.OVERLOADED);
        }
        assertThat(route(null, this::record)).isEqualTo("sonnet");
        assertThat(this.opus.rejections).singleElement().isInstanceOf(CircuitOpenException.class);
        assertThat(this.opus.routedTo).containsExactly("sonnet");
    }

    @Test
    void whenEveryCandidateIsSkippedTheRejectionPropagates() {
        this.opus.wait = null;
        this.sonnet.wait = Duration.ofMinutes(5);
        assertThatExceptionOfType(AdmissionTimeoutException.class).isThrownBy(() -> route(null, this::record))
            .satisfies((ex) -> {
                assertThat(ex.getModel()).isEqualTo("sonnet");
                assertThat(ex.getRetryAfter()).isEqualTo(Duration.ofMinutes(5));
            });
        assertThat(this.contexts).isEmpty();
    }

    @Test
    void aCandidateOfAnotherClientRunsWithThatClientInItsContext() throws Throwable {
        FakeCandidate gpt = new FakeCandidate("openai", "gpt-4o-mini");
        ModelRouter router = new ModelRouter("anthropic", List.of(this.opus, gpt), Duration.ofSeconds(30));
        List<String> clients = new ArrayList<>();
        String answer = router.route(Priority.REALTIME, "acme", null, (context) -> {
            clients.add(context.getClient() + "/" + context.getModel() + "/" + context.getPriority() + "/"
                    + context.getTenant());
            if (context.getClient().equals("anthropic")) {
                throw new CircuitOpenException("anthropic", "opus", Duration.ofSeconds(30));
            }
            return context.getModel();
        }, null);
        assertThat(answer).isEqualTo("gpt-4o-mini");
        assertThat(clients).containsExactly("anthropic/opus/REALTIME/acme", "openai/gpt-4o-mini/REALTIME/acme");
        assertThat(this.opus.routedTo).containsExactly("openai:gpt-4o-mini");
    }

    @Test
    void aThrottlingFailureCountsOnlyForTheClientTheInvocationWasRoutedTo() {
        FakeCandidate gpt = new FakeCandidate("openai", "gpt-4o-mini");
        ModelRouter router = new ModelRouter("anthropic", List.of(this.opus, gpt, this.sonnet), Duration.ofSeconds(30));
        List<String> models = new ArrayList<>();
        assertThatExceptionOfType(QueueFullException.class)
            .isThrownBy(() -> router.route(Priority.NORMAL, null, null, (context) -> {
                models.add(context.getModel());
                if (context.getClient().equals("openai")) {
                    // a failure of the router's first client while routed to openai
                    throw new QueueFullException("anthropic", "opus", 10, null);
                }
                throw new QueueFullException(context.getClient(), context.getModel(), 10, null);
            }, null))
            .satisfies((ex) -> assertThat(ex.getClient()).isEqualTo("anthropic"));
        assertThat(models).containsExactly("opus", "gpt-4o-mini");
    }

    @Test
    void aRequestTooLargeForAWindowGoesToTheNextCandidateWhoseWindowFits() throws Throwable {
        FakeCandidate haiku = new FakeCandidate("anthropic", "haiku");
        haiku.contextWindow = 100_000L;
        FakeCandidate small = new FakeCandidate("anthropic", "small");
        small.contextWindow = 8_000L;
        FakeCandidate large = new FakeCandidate("openai", "large");
        large.contextWindow = 1_000_000L;
        ModelRouter router = new ModelRouter("anthropic", List.of(haiku, small, large), Duration.ofSeconds(30));
        List<String> models = new ArrayList<>();
        String answer = router.route(Priority.NORMAL, null, null, (context) -> {
            models.add(context.getModel());
            if (context.getModel().equals("haiku")) {
                throw new ContextWindowExceededException("anthropic", "haiku", 120_000, 4_000, 100_000);
            }
            return context.getModel();
        }, null);
        assertThat(answer).isEqualTo("large");
        assertThat(models).containsExactly("haiku", "large");
        assertThat(small.rejections).singleElement()
            .isInstanceOfSatisfying(ContextWindowExceededException.class, (ex) -> {
                assertThat(ex.getContextWindow()).isEqualTo(8_000L);
                assertThat(ex.getRequiredTokens()).isEqualTo(124_000L);
                assertThat(ex.getRejectionReason()).isEqualTo(RejectionReason.CONTEXT_WINDOW);
            });
        assertThat(haiku.routedTo).containsExactly("small");
        assertThat(small.routedTo).containsExactly("openai:large");
    }

    @Test
    void whenNoWindowFitsTheContextWindowFailurePropagatesWithBothNumbers() {
        this.sonnet.contextWindow = 50_000L;
        assertThatExceptionOfType(ContextWindowExceededException.class).isThrownBy(() -> route(null, (context) -> {
            throw new ContextWindowExceededException("anthropic", context.getModel(), 150_000, 0, 100_000);
        }))
            .withMessage("Request needs an estimated 150,000 input tokens, more than the 50,000-token context window "
                    + "of client 'anthropic', model 'sonnet'; it was not sent")
            .satisfies((ex) -> assertThat(ex.getRetryAfter()).isNull());
        assertThat(this.contexts).containsExactly("opus#0");
    }

    @Test
    void theThreadsContextIsLeftAsItIs() throws Throwable {
        ThrottleContext outer = new ThrottleContext("other", "m", Priority.BATCH, null, 0, null);
        this.threadContext = outer;
        try (ThrottleContext.Scope scope = ThrottleContext.open(outer)) {
            assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> route(null, (context) -> {
                throw new IllegalStateException();
            }));
            assertThat(ThrottleContext.current()).isSameAs(outer);
        }
        assertThat(ThrottleContext.current()).isNull();
    }

    private String record(ThrottleContext context) {
        this.contexts.add(context.getModel() + "#" + context.getAttempt());
        return context.getModel();
    }

    private String route(ModelRouter.@Nullable Recovery<String> recovery, ModelRouter.Invocation<String> invocation)
            throws Throwable {
        return this.router.route(Priority.NORMAL, null, null, (context) -> {
            // the invocation makes its context current, not the router
            assertThat(ThrottleContext.current()).isSameAs(this.threadContext);
            this.contexts.add(context.getModel() + "#" + context.getAttempt());
            return invocation.proceed(context);
        }, recovery);
    }

    private final class FakeCandidate implements RouteCandidate {

        private final String client;

        private final String model;

        private final ModelCircuit circuit;

        private @Nullable Long contextWindow;

        private @Nullable Duration wait = Duration.ZERO;

        private final List<String> asked = new ArrayList<>();

        private final List<LlmThrottleException> rejections = new ArrayList<>();

        private final List<String> routedTo = new ArrayList<>();

        FakeCandidate(String model) {
            this("anthropic", model);
        }

        FakeCandidate(String client, String model) {
            this.client = client;
            this.model = model;
            this.circuit = new ModelCircuit(client, model, CircuitSettings.DEFAULTS, ModelRouterTests.this.clock);
        }

        @Override
        public String client() {
            return this.client;
        }

        @Override
        public String model() {
            return this.model;
        }

        @Override
        public @Nullable Long contextWindow() {
            return this.contextWindow;
        }

        @Override
        public ModelCircuit circuit() {
            return this.circuit;
        }

        @Override
        public @Nullable Duration estimatedWait(Priority priority, @Nullable String tenant, Duration maxWait) {
            this.asked.add(priority + "/" + tenant + "/" + maxWait);
            return this.wait;
        }

        @Override
        public void rejected(LlmThrottleException rejection) {
            this.rejections.add(rejection);
        }

        @Override
        public void routedAway(String to, LlmThrottleException cause) {
            this.routedTo.add(to);
        }

    }

}
