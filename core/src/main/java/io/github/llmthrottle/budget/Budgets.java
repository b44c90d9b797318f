package io.github.llmthrottle.budget;

import java.math.BigDecimal;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import io.github.llmthrottle.BudgetExceededException;
import io.github.llmthrottle.SharedStoreUnavailableException;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.provider.Usage;
import io.github.llmthrottle.quota.LocalQuotaStore;
import io.github.llmthrottle.quota.QuotaStore;
import io.github.llmthrottle.quota.QuotaWindow;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.quota.TrackedTenants;
import io.github.llmthrottle.routing.CostEstimator;
import io.github.llmthrottle.store.BucketStoreUnavailableException;
import org.jspecify.annotations.Nullable;

/**
 * The budgets in money of every client, model and tenant ({@link BudgetSettings}),
 * counted in millionths of the currency in a {@link QuotaStore}, the store of the token
 * quotas (in this JVM, or shared through Redis), under keys of their own. Before each
 * attempt to a model with a price, {@link #reserve} takes the attempt's estimated cost
 * (its estimated input tokens at the input price plus its {@code max_tokens} at the
 * output price) from every budget that applies to it, all or nothing; the
 * {@link BudgetReservation} is then corrected to what the attempt's usage cost, or given
 * back. A budget that cannot take the estimate fails the call at once with
 * {@link BudgetExceededException}, the time until the window resets as its retry-after.
 * Windows are calendar days and months in UTC ({@link QuotaWindow}), read from the wall
 * clock. A model without a price is never counted.
 *
 * <p>
 * At most {@code llm.throttle.max-tracked-names} tenants named only in requests are
 * tracked for the endpoint and gauges; the least recently used beyond are forgotten
 * ({@link QuotaStore#forget}), but not what they spent.
 */
public final class Budgets implements CostEstimator {

    private final BudgetSettings settings;

    private final QuotaStore store;

    private final Clock clock;

    private final boolean empty;

    /** Tenants that reserved lately, with no budget of their own. */
    private final TrackedTenants tenants;

    /**
     * Creates the budgets.
     * @param settings the prices and budgets of every client, model and tenant
     * @param store where the amounts spent live
     * @param clock the wall clock that says which day and month it is
     * @param maxTrackedTenants most tenants shown at once, the least recently used
     * forgotten beyond
     */
    public Budgets(BudgetSettings settings, QuotaStore store, Clock clock, int maxTrackedTenants) {
        this.tenants = new TrackedTenants(maxTrackedTenants);
        this.settings = settings;
        this.store = store;
        this.clock = clock;
        this.empty = settings.hasNoBudget();
    }

    /**
     * No price and no budget anywhere.
     * @return budgets that never refuse and price nothing
     */
    public static Budgets none() {
        return new Budgets(BudgetSettings.NONE, new LocalQuotaStore(Clock.systemUTC()), Clock.systemUTC(),
                LimiterOptions.DEFAULT_MAX_TRACKED_NAMES);
    }

    /**
     * The prices and budgets.
     * @return the settings
     */
    public BudgetSettings settings() {
        return this.settings;
    }

    /**
     * Whether no budget is configured (prices may be).
     * @return {@code true} when reservations never count anything
     */
    public boolean isEmpty() {
        return this.empty;
    }

    /**
     * What a settled call cost.
     * @param client the client
     * @param model the model
     * @param usage the tokens the provider counted
     * @return the cost in the currency, or {@code null} when the model has no price
     */
    public @Nullable BigDecimal cost(String client, String model, Usage usage) {
        ModelPrice price = this.settings.price(client, model);
        return (price != null) ? price.cost(usage) : null;
    }

    /**
     * The estimated cost of a request to a model, from its prices: what
     * {@link io.github.llmthrottle.Routing#CHEAPEST} compares.
     * @param client the client
     * @param model the model
     * @param inputTokens the estimated input tokens
     * @param outputTokens the output tokens it may generate
     * @return the cost in the currency, or {@code null} when the model has no price
     */
    @Override
    public @Nullable BigDecimal estimate(String client, String model, long inputTokens, long outputTokens) {
        ModelPrice price = this.settings.price(client, model);
        return (price != null) ? BigDecimal.valueOf(price.estimateMicros(inputTokens, outputTokens), 6) : null;
    }

    /**
     * Takes the estimated cost of an attempt from every budget of the call, or from none.
     * @param client the client
     * @param model the model
     * @param tenant the tenant, or {@code null}
     * @param inputTokens the estimated input tokens
     * @param outputTokens the output tokens the call may generate ({@code max_tokens})
     * @return the reservation, to settle to what the attempt's usage cost
     * @throws BudgetExceededException when a budget cannot take it
     * @throws SharedStoreUnavailableException when the shared store cannot be reached and
     * is configured to reject
     */
    public BudgetReservation reserve(String client, String model, @Nullable String tenant, long inputTokens,
            long outputTokens) {
        ModelPrice price = this.settings.price(client, model);
        if (this.empty || price == null) {
            return BudgetReservation.NONE;
        }
        Instant now = this.clock.instant();
        List<Window> windows = windows(client, model, tenant, now);
        if (windows.isEmpty()) {
            return BudgetReservation.NONE;
        }
        if (tenant != null && !this.settings.tenant(tenant).isEmpty()) {
            track(tenant, now);
        }
        long estimate = price.estimateMicros(inputTokens, outputTokens);
        QuotaStore.Take take;
        try {
            take = this.store.take(windows.stream().map(Window::counter).toList(), estimate);
        }
        catch (BucketStoreUnavailableException ex) {
            throw new SharedStoreUnavailableException(client, model, ex.getRetryAfter(), ex);
        }
        if (take.exceeded() >= 0) {
            Window window = windows.get(take.exceeded());
            String owner = switch (window.scope()) {
                case "model" -> "model '" + model + "' of client '" + client + "'";
                case "client" -> "client '" + client + "'";
                default -> "tenant '" + tenant + "'";
            };
            long left = Math.max(0, window.counter().limit() - this.store.used(window.counter().key()));
            String budget = Budget.fromMicros(window.counter().limit()).toPlainString() + " " + this.settings.currency()
                    + " per " + window.period().window().tag() + ", " + Budget.fromMicros(left).toPlainString()
                    + " left, the call estimated at " + Budget.fromMicros(estimate).toPlainString();
            throw new BudgetExceededException(client, model, tenant, owner, budget,
                    Duration.between(now, window.period().end()));
        }
        return new BudgetReservation(take.correction(), price, estimate);
    }

    /**
     * Whether a budget of a call to this model is more than the warning share spent: the
     * model is then tried after the others that are not.
     * @param client the client
     * @param model the model
     * @param tenant the tenant, or {@code null}
     * @return whether a budget of the call is nearly spent
     */
    public boolean isNearlySpent(String client, String model, @Nullable String tenant) {
        if (this.empty || this.settings.price(client, model) == null) {
            return false;
        }
        for (Window window : windows(client, model, tenant, this.clock.instant())) {
            QuotaStore.Counter counter = window.counter();
            if (this.store.used(counter.key()) > counter.limit() * this.settings.warningShare()) {
                return true;
            }
        }
        return false;
    }

    /**
     * What is left of every budget of the given clients and their models, and of the
     * tenants with a budget of their own or seen lately, now.
     * @param models the models of each client to show
     * @return one state per budget and window
     */
    public List<BudgetState> states(Map<String, ? extends Collection<String>> models) {
        Instant now = this.clock.instant();
        List<BudgetState> states = new ArrayList<>();
        models.forEach((client, names) -> {
            for (String model : names) {
                add(states, "model", client, model, null, this.settings.model(client, model), now);
            }
            add(states, "client", client, null, null, this.settings.client(client), now);
        });
        for (String tenant : tenants()) {
            add(states, "tenant", null, null, tenant, this.settings.tenant(tenant), now);
        }
        return states;
    }

    /**
     * What was spent against one budget in the window in force.
     * @param scope {@code model}, {@code client} or {@code tenant}
     * @param client the client of a model or client budget, else {@code null}
     * @param model the model of a model budget, else {@code null}
     * @param tenant the tenant of a tenant budget, else {@code null}
     * @param window the window
     * @return the amount spent so far (reservations of calls in flight included)
     */
    public BigDecimal spent(String scope, @Nullable String client, @Nullable String model, @Nullable String tenant,
            QuotaWindow window) {
        return Budget
            .fromMicros(this.store.used(key(scope, client, model, tenant, window.periodOf(this.clock.instant()))));
    }

    /**
     * The tenants whose budgets are shown: those with a budget of their own, then those
     * seen lately.
     * @return the tenants
     */
    public List<String> tenants() {
        return this.tenants.withConfigured(this.settings.tenantOverrides().keySet());
    }

    private void add(List<BudgetState> states, String scope, @Nullable String client, @Nullable String model,
            @Nullable String tenant, Budget budget, Instant now) {
        List<Window> windows = new ArrayList<>(2);
        collect(windows, scope, client, model, tenant, budget, now);
        for (Window window : windows) {
            long spent = this.store.used(window.counter().key());
            long limit = window.counter().limit();
            states.add(new BudgetState(scope, client, model, tenant, window.period().window(), Budget.fromMicros(limit),
                    Budget.fromMicros(spent), Budget.fromMicros(Math.max(0, limit - spent)), this.settings.currency(),
                    window.period().end()));
        }
    }

    private List<Window> windows(String client, String model, @Nullable String tenant, Instant now) {
        List<Window> windows = new ArrayList<>(2);
        collect(windows, "model", client, model, null, this.settings.model(client, model), now);
        collect(windows, "client", client, null, null, this.settings.client(client), now);
        if (tenant != null) {
            collect(windows, "tenant", null, null, tenant, this.settings.tenant(tenant), now);
        }
        return windows;
    }

    private static void collect(List<Window> windows, String scope, @Nullable String client, @Nullable String model,
            @Nullable String tenant, Budget budget, Instant now) {
        for (QuotaWindow window : QuotaWindow.values()) {
            Long limit = budget.limitMicros(window);
            if (limit != null) {
                QuotaWindow.Period period = window.periodOf(now);
                windows.add(new Window(scope, period,
                        new QuotaStore.Counter(key(scope, client, model, tenant, period), limit, period.end())));
            }
        }
    }

    /** The key of one budget's counter in one window, its names escaped. */
    static String key(String scope, @Nullable String client, @Nullable String model, @Nullable String tenant,
            QuotaWindow.Period period) {
        return "budget-" + TokenQuotas.key(scope, client, model, tenant, period.window(), period);
    }

    private void track(String tenant, Instant now) {
        String forgotten = this.tenants.track(tenant);
        if (forgotten != null && !this.settings.tenantOverrides().containsKey(forgotten)) {
            List<Window> windows = new ArrayList<>(2);
            collect(windows, "tenant", null, null, forgotten, this.settings.tenant(forgotten), now);
            this.store.forget(windows.stream().map(Window::counter).toList());
        }
    }

    /** One budget of one call, in the window in force. */
    private record Window(String scope, QuotaWindow.Period period, QuotaStore.Counter counter) {
    }

    /**
     * What is left of one budget in the window in force, for the endpoint and gauges.
     *
     * @param scope {@code model}, {@code client} or {@code tenant}
     * @param client the client of a model or client budget, else {@code null}
     * @param model the model of a model budget, else {@code null}
     * @param tenant the tenant of a tenant budget, else {@code null}
     * @param window the window
     * @param limit the budget
     * @param spent what was spent in the window so far (reservations of calls in flight
     * included)
     * @param remaining what is left
     * @param currency the currency of the amounts
     * @param resetsAt when the window ends and spending starts again from zero
     */
    public record BudgetState(String scope, @Nullable String client, @Nullable String model, @Nullable String tenant,
            QuotaWindow window, BigDecimal limit, BigDecimal spent, BigDecimal remaining, String currency,
            Instant resetsAt) {
    }

}
