package io.github.llmthrottle.routing;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.llmthrottle.BudgetExceededException;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.Priority;
import io.github.llmthrottle.time.FakeClock;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests of how {@link ModelRouter} treats budgets in money: a candidate whose budget is
 * nearly spent is tried after the others, and a budget exceeded routes to the next
 * candidate like any throttling failure.
 */
class ModelRouterBudgetTests {

    private final FakeClock clock = FakeClock.at("2026-01-01T00:00:00Z");

    private final List<String> tried = new ArrayList<>();

    @Test
    void aCandidateNearItsBudgetIsTriedAfterTheOthers() throws Throwable {
        ModelRouter router = router(Set.of("opus"), "opus", "sonnet", "haiku");
        String answer = router.route(Priority.NORMAL, "acme", null, (context) -> {
            this.tried.add(context.getModel());
            if (!context.getModel().equals("opus")) {
                throw budgetExceeded(context.getModel());
            }
            return context.getModel();
        }, null);
        assertThat(answer).isEqualTo("opus");
        assertThat(this.tried).containsExactly("sonnet", "haiku", "opus");
    }

    @Test
    void candidatesKeepTheirOrderWhenNoneOrAllAreNearTheirBudget() throws Throwable {
        assertThat(router(Set.of(), "opus", "sonnet").route(Priority.NORMAL, null, null, this::first, null))
            .isEqualTo("opus");
        assertThat(router(Set.of("opus", "sonnet"), "opus", "sonnet").route(Priority.NORMAL, null, null, this::first,
                null))
            .isEqualTo("opus");
    }

    @Test
    void anExceededBudgetRoutesToTheNextCandidateAndReachesTheRecovery() throws Throwable {
        ModelRouter router = router(Set.of(), "opus", "sonnet");
        LlmThrottleException[] last = new LlmThrottleException[1];
        String answer = router.route(Priority.NORMAL, null, null, (context) -> {
            this.tried.add(context.getModel());
            throw budgetExceeded(context.getModel());
        }, (failure) -> {
            last[0] = failure;
            return "recovered";
        });
        assertThat(answer).isEqualTo("recovered");
        assertThat(this.tried).containsExactly("opus", "sonnet");
        assertThat(last[0]).isInstanceOf(BudgetExceededException.class);
        assertThat(last[0].getModel()).isEqualTo("sonnet");
    }

    private String first(io.github.llmthrottle.ThrottleContext context) {
        return context.getModel();
    }

    private static BudgetExceededException budgetExceeded(String model) {
        return new BudgetExceededException("anthropic", model, null, "model '" + model + "'",
                new BigDecimal("1").toPlainString() + " USD per day", Duration.ofHours(1));
    }

    private ModelRouter router(Set<String> nearBudget, String... models) {
        List<RouteCandidate> candidates = new ArrayList<>();
        for (String model : models) {
            candidates.add(new BudgetCandidate(model, nearBudget.contains(model)));
        }
        return new ModelRouter("anthropic", candidates, Duration.ofSeconds(30));
    }

    private final class BudgetCandidate implements RouteCandidate {

        private final String model;

        private final boolean nearBudget;

        private final ModelCircuit circuit;

        BudgetCandidate(String model, boolean nearBudget) {
            this.model = model;
            this.nearBudget = nearBudget;
            this.circuit = new ModelCircuit("anthropic", model, CircuitSettings.DEFAULTS,
                    ModelRouterBudgetTests.this.clock);
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
            return Duration.ZERO;
        }

        @Override
        public boolean isNearBudget(@Nullable String tenant) {
            return this.nearBudget;
        }

    }

}
