package io.github.llmthrottle.routing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.github.llmthrottle.FallbackOn;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.ProviderRefusedException;
import io.github.llmthrottle.QueueFullException;
import io.github.llmthrottle.time.FakeClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * Routing strategies ({@link WeightedRouteOrder}, {@link CheapestRouteOrder}) and routing
 * around provider refusals, through a {@link ModelRouter} over fake candidates.
 */
class RouteOrderTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final Candidate sonnet = new Candidate("sonnet");

    private final Candidate opus = new Candidate("opus");

    private final Candidate haiku = new Candidate("haiku");

    private final List<RouteCandidate> candidates = List.of(this.sonnet, this.opus, this.haiku);

    private final ModelRouter router = new ModelRouter("anthropic", this.candidates, Duration.ofSeconds(30));

    @Test
    void weightsSplitFirstAttemptsInExactProportion() throws Throwable {
        ModelRouter weighted = this.router.withOrder(new WeightedRouteOrder(new int[] { 70, 30, 0 }));
        Map<String, Integer> first = new HashMap<>();
        for (int i = 0; i < 1000; i++) {
            first.merge(route(weighted, (context) -> context.getModel()), 1, Integer::sum);
        }
        assertThat(first).containsExactlyInAnyOrderEntriesOf(Map.of("sonnet", 700, "opus", 300));
    }

    @Test
    void weightedRoutingSpreadsTheShareInsteadOfBunchingIt() {
        WeightedRouteOrder order = new WeightedRouteOrder(new int[] { 1, 1, 0 });
        List<Integer> firsts = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            firsts.add(order.order(this.candidates)[0]);
        }
        assertThat(firsts).containsExactly(0, 1, 0, 1);
    }

    @Test
    void afterAWeightedFirstChoiceFailsTheOthersFollowInOrder() throws Throwable {
        ModelRouter weighted = this.router.withOrder(new WeightedRouteOrder(new int[] { 0, 1, 0 }));
        List<String> tried = new ArrayList<>();
        String answer = route(weighted, (context) -> {
            tried.add(context.getModel() + "#" + context.getAttempt());
            if (!context.getModel().equals("haiku")) {
                throw new QueueFullException("anthropic", context.getModel(), 1, null);
            }
            return context.getModel();
        });
        assertThat(answer).isEqualTo("haiku");
        assertThat(tried).containsExactly("opus#0", "sonnet#1", "haiku#2");
        assertThat(this.opus.routedTo).containsExactly("sonnet");
        assertThat(this.sonnet.routedTo).containsExactly("haiku");
    }

    @Test
    void weightsAreChecked() {
        assertThatIllegalArgumentException().isThrownBy(() -> new WeightedRouteOrder(new int[] { 1, -1 }))
            .withMessageContaining("negative");
        assertThatIllegalArgumentException().isThrownBy(() -> new WeightedRouteOrder(new int[] { 0, 0 }))
            .withMessageContaining("more than 0");
        WeightedRouteOrder two = new WeightedRouteOrder(new int[] { 1, 1 });
        assertThatIllegalArgumentException().isThrownBy(() -> two.order(this.candidates))
            .withMessageContaining("2 weights for 3 candidates");
    }

    @Test
    void theCheapestCandidateWhoseWaitFitsGoesFirst() throws Throwable {
        Map<String, String> perMillion = Map.of("sonnet", "3", "opus", "15", "haiku", "1");
        CostEstimator costs = (client, model, input, output) -> new BigDecimal(perMillion.get(model))
            .multiply(BigDecimal.valueOf(input + output));
        ModelRouter cheapest = this.router.withOrder(new CheapestRouteOrder("anthropic", costs));
        assertThat(route(cheapest, (context) -> context.getModel())).isEqualTo("haiku");
        this.haiku.wait = Duration.ofMinutes(5);
        assertThat(route(cheapest, (context) -> context.getModel())).isEqualTo("sonnet");
    }

    @Test
    void theCheapestIsPricedOnTheTypicalRequestOfAllCandidates() {
        // opus is cheaper per input token, sonnet per output token: the typical request
        // decides
        List<long[]> asked = new ArrayList<>();
        CostEstimator costs = (client, model, input, output) -> {
            asked.add(new long[] { input, output });
            return model.equals("opus") ? BigDecimal.valueOf(input + 10 * output)
                    : BigDecimal.valueOf(10 * input + output);
        };
        CheapestRouteOrder order = new CheapestRouteOrder("anthropic", costs);
        List<RouteCandidate> two = List.of(this.sonnet, this.opus);
        assertThat(order.order(two)).containsExactly(1, 0);
        assertThat(asked.get(0)).containsExactly(CheapestRouteOrder.NOMINAL_INPUT, CheapestRouteOrder.NOMINAL_OUTPUT);
        this.sonnet.history = new TokenHistory(2, 200, 8000);
        this.opus.history = new TokenHistory(2, 200, 0);
        assertThat(order.order(two)).containsExactly(0, 1);
        assertThat(asked.get(asked.size() - 1)).containsExactly(100L, 2000L);
    }

    @Test
    void unpricedCandidatesFollowThePricedOnesInOrder() {
        CostEstimator costs = (client, model, input, output) -> model.equals("haiku") ? BigDecimal.ONE : null;
        CheapestRouteOrder order = new CheapestRouteOrder("anthropic", costs);
        assertThat(order.order(this.candidates)).containsExactly(2, 0, 1);
        assertThat(order.pricesAny(this.candidates)).isTrue();
        assertThat(
                new CheapestRouteOrder("anthropic", (client, model, input, output) -> null).pricesAny(this.candidates))
            .isFalse();
    }

    @Test
    void aListedProviderRefusalMovesToTheNextCandidate() throws Throwable {
        ModelRouter router = this.router.withFallbackOn(EnumSet.of(FallbackOn.CONTEXT_LENGTH));
        String answer = route(router, (context) -> {
            if (context.getModel().equals("sonnet")) {
                throw new IllegalStateException("400 Bad Request: {\"error\":{\"code\":\"context_length_exceeded\"}}");
            }
            return context.getModel();
        });
        assertThat(answer).isEqualTo("opus");
        assertThat(this.sonnet.causes).singleElement()
            .isInstanceOfSatisfying(ProviderRefusedException.class,
                    (ex) -> assertThat(ex.getRefusal()).isEqualTo(FallbackOn.CONTEXT_LENGTH));
    }

    @Test
    void whenEveryCandidateRefusesTheRecoveryGetsTheRefusalAndWithoutOneTheLastExceptionPropagates() throws Throwable {
        ModelRouter router = this.router.withFallbackOn(Set.of(FallbackOn.QUOTA));
        IllegalStateException refused = new IllegalStateException("429: {\"error\":{\"code\":\"insufficient_quota\"}}");
        String recovered = router.route(Priority.NORMAL, null, null, (context) -> {
            throw refused;
        }, (failure) -> failure.getClass().getSimpleName() + "/" + failure.getCause().getMessage().length());
        assertThat(recovered).isEqualTo("ProviderRefusedException/" + refused.getMessage().length());
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> route(router, (context) -> {
            throw refused;
        })).isSameAs(refused);
    }

    @Test
    void aRefusalThatIsNotListedPropagatesAtOnce() {
        ModelRouter router = this.router.withFallbackOn(Set.of(FallbackOn.QUOTA));
        List<String> tried = new ArrayList<>();
        assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> route(router, (context) -> {
            tried.add(context.getModel());
            throw new UncheckedIOException("400: {\"error\":{\"code\":\"context_length_exceeded\"}}",
                    new IOException("400"));
        }));
        assertThat(tried).containsExactly("sonnet");
        assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> route(this.router, (context) -> {
            throw new IllegalStateException("429: {\"error\":{\"code\":\"insufficient_quota\"}}");
        }));
    }

    private static String route(ModelRouter router, ModelRouter.Invocation<String> invocation) throws Throwable {
        return router.route(Priority.NORMAL, null, null, invocation, null);
    }

    private final class Candidate implements RouteCandidate {

        private final String model;

        private final ModelCircuit circuit;

        private Duration wait = Duration.ZERO;

        private TokenHistory history = TokenHistory.NONE;

        private final List<String> routedTo = new ArrayList<>();

        private final List<LlmThrottleException> causes = new ArrayList<>();

        Candidate(String model) {
            this.model = model;
            this.circuit = new ModelCircuit("anthropic", model, CircuitSettings.DEFAULTS, RouteOrderTests.this.clock);
        }

        @Override
        public String model() {
            return this.model;
        }

        @Override
        public ModelCircuit circuit() {
            return this.circuit;
        }

        @Override
        public @Nullable Duration estimatedWait(Priority priority, @Nullable String tenant, Duration maxWait) {
            return this.wait;
        }

        @Override
        public TokenHistory history() {
            return this.history;
        }

        @Override
        public void routedAway(String to, LlmThrottleException cause) {
            this.routedTo.add(to);
            this.causes.add(cause);
        }

        @Override
        public String toString() {
            return this.model;
        }

    }

}
