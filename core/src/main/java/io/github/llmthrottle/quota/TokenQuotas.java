package io.github.llmthrottle.quota;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.SharedStoreUnavailableException;
import io.github.llmthrottle.TenantQuotaExceededException;
import io.github.llmthrottle.TokenQuotaExceededException;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.store.BucketKeys;
import io.github.llmthrottle.store.BucketStoreUnavailableException;
import org.jspecify.annotations.Nullable;

/**
 * The token quotas over long windows of every client, model and tenant
 * ({@link QuotaSettings}), counted in a {@link QuotaStore}. Before each attempt,
 * {@link #reserve} takes the attempt's estimate (input tokens plus its
 * {@code max_tokens}) from every quota that applies to it, all or nothing; the
 * {@link QuotaReservation} is then corrected to the tokens the attempt used, or given
 * back. A quota that cannot take the estimate fails the call at once:
 * {@link TenantQuotaExceededException} for a tenant's quota,
 * {@link TokenQuotaExceededException} for a model's or a client's, with the time until
 * the window resets as its retry-after. Windows are calendar days and months in UTC
 * ({@link QuotaWindow}), read from the wall clock; a store whose counters run on its
 * server's time says when it refused ({@link QuotaStore.Take#now()}), and the retry-after
 * is counted from then to the end of the server's window.
 *
 * <p>
 * A quota is exhausted when nothing is left of it, or when it refused the last call that
 * asked it for tokens in its window (a call's estimate may not fit in what is left):
 * {@link QuotaState#exhausted()}, which the health indicator reports.
 *
 * <p>
 * At most {@code llm.throttle.max-tracked-names} tenants named only in requests are
 * tracked; the least recently used beyond are forgotten, their counters with them
 * ({@link QuotaStore#forget}), but not what those counted: a forgotten tenant's next call
 * finds at least what it had used.
 */
public final class TokenQuotas {

    private final QuotaSettings settings;

    /**
     * Quotas whose refusal is remembered at once: those of the configured models and
     * clients, and of the tracked tenants, fit many times over.
     */
    static final int MAX_REFUSALS = 1_000;

    private final QuotaStore store;

    private final Clock clock;

    /** Whether no quota is configured: then every reservation is free, at no cost. */
    private final boolean empty;

    /** Tenants that reserved lately, with no quota of their own. */
    private final TrackedTenants tenants;

    /**
     * The counters that refused the last call asking them, by key, with the end of their
     * window.
     */
    private final Map<String, Instant> refusals = new ConcurrentHashMap<>();

    /**
     * Creates the quotas.
     * @param settings the quotas of every client, model and tenant
     * @param store where the counts live
     * @param clock the wall clock that says which day and month it is
     */
    public TokenQuotas(QuotaSettings settings, QuotaStore store, Clock clock) {
        this(settings, store, clock, LimiterOptions.DEFAULT_MAX_TRACKED_NAMES);
    }

    /**
     * Creates the quotas.
     * @param settings the quotas of every client, model and tenant
     * @param store where the counts live
     * @param clock the wall clock that says which day and month it is
     * @param maxTrackedTenants most tenants whose quotas the endpoint shows at once
     * ({@code llm.throttle.max-tracked-names}), the least recently used forgotten beyond
     */
    public TokenQuotas(QuotaSettings settings, QuotaStore store, Clock clock, int maxTrackedTenants) {
        this.tenants = new TrackedTenants(maxTrackedTenants);
        this.settings = settings;
        this.store = store;
        this.clock = clock;
        this.empty = settings.isEmpty();
    }

    /**
     * No quota anywhere: every reservation is free.
     * @return quotas that never refuse
     */
    public static TokenQuotas none() {
        return new TokenQuotas(QuotaSettings.NONE, new LocalQuotaStore(Clock.systemUTC()), Clock.systemUTC());
    }

    /**
     * Whether any quota is configured.
     * @return {@code false} when reservations never count anything
     */
    public boolean isEmpty() {
        return this.empty;
    }

    /**
     * Takes {@code tokens} from every quota of a call, or from none.
     * @param client the client
     * @param model the model
     * @param tenant the tenant, or {@code null}
     * @param tokens the attempt's estimate: input tokens plus {@code max_tokens}
     * @return the reservation, to settle to what the attempt used
     * @throws TenantQuotaExceededException when a quota cannot take it
     * ({@link TokenQuotaExceededException} for a model's or client's)
     * @throws SharedStoreUnavailableException when the shared store cannot be reached and
     * is configured to reject
     */
    public QuotaReservation reserve(String client, String model, @Nullable String tenant, long tokens) {
        if (this.empty) {
            return QuotaReservation.NONE;
        }
        Instant now = this.clock.instant();
        List<Quota> quotas = quotas(client, model, tenant, now);
        if (quotas.isEmpty()) {
            return QuotaReservation.NONE;
        }
        if (tenant != null && !this.settings.tenant(tenant).isEmpty()) {
            track(tenant, now);
        }
        List<QuotaStore.Counter> counters = new ArrayList<>(quotas.size());
        quotas.forEach((quota) -> counters.add(quota.counter()));
        long amount = Math.max(0, tokens);
        QuotaStore.Take take;
        try {
            take = this.store.take(counters, amount);
        }
        catch (BucketStoreUnavailableException ex) {
            throw new SharedStoreUnavailableException(client, model, ex.getRetryAfter(), ex);
        }
        int exceeded = take.exceeded();
        if (exceeded >= 0) {
            // resets when the store's window ends, by the store's time
            Quota quota = quotas.get(exceeded).at(take.now());
            refused(quota);
            throw exceeded(client, model, tenant, quota);
        }
        if (!this.refusals.isEmpty()) {
            counters.forEach((counter) -> this.refusals.remove(counter.key()));
        }
        return new QuotaReservation(take.correction(), amount);
    }

    /**
     * What is left of every quota of the given clients and their models, and of the
     * tenants with a quota of their own or seen lately, now.
     * @param models the models of each client to show
     * @return one state per quota and window
     */
    public List<QuotaState> states(Map<String, ? extends Collection<String>> models) {
        Instant now = this.clock.instant();
        List<QuotaState> states = new ArrayList<>();
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
     * What is left of a model's own quota, now (not its client's nor its tenants').
     * @param client the client
     * @param model the model
     * @return one state per window with a quota
     */
    public List<QuotaState> statesOfModel(String client, String model) {
        return statesOf("model", client, model, null, this.settings.model(client, model));
    }

    /**
     * What is left of a client's quota (all its models together), now.
     * @param client the client
     * @return one state per window with a quota
     */
    public List<QuotaState> statesOfClient(String client) {
        return statesOf("client", client, null, null, this.settings.client(client));
    }

    /**
     * What is left of the quotas of one tenant, now.
     * @param tenant the tenant
     * @return one state per window with a quota
     */
    public List<QuotaState> statesOfTenant(String tenant) {
        return statesOf("tenant", null, null, tenant, this.settings.tenant(tenant));
    }

    private List<QuotaState> statesOf(String scope, @Nullable String client, @Nullable String model,
            @Nullable String tenant, TokenQuota quota) {
        List<QuotaState> states = new ArrayList<>(2);
        add(states, scope, client, model, tenant, quota, this.clock.instant());
        return states;
    }

    /**
     * The tokens a quota has counted in the window in force.
     * @param scope {@code model}, {@code client} or {@code tenant}
     * @param client the client of a model or client quota, else {@code null}
     * @param model the model of a model quota, else {@code null}
     * @param tenant the tenant of a tenant quota, else {@code null}
     * @param window the window
     * @return the tokens counted so far (reservations of calls in flight included)
     */
    public long used(String scope, @Nullable String client, @Nullable String model, @Nullable String tenant,
            QuotaWindow window) {
        return this.store.used(key(scope, client, model, tenant, window, window.periodOf(this.clock.instant())));
    }

    /**
     * The tenants whose quotas are shown: those with a quota of their own, then those
     * seen lately (at most {@code llm.throttle.max-tracked-names}, the least recently
     * used forgotten beyond).
     * @return the tenants
     */
    public List<String> tenants() {
        return this.tenants.withConfigured(this.settings.tenantOverrides().keySet());
    }

    /**
     * A number that changes each time a tenant starts or stops being tracked, so that a
     * reader of {@link #tenants()} knows cheaply when to read it again.
     * @return the version of the tracked tenants
     */
    public long tenantsVersion() {
        return this.tenants.version();
    }

    private void add(List<QuotaState> states, String scope, @Nullable String client, @Nullable String model,
            @Nullable String tenant, TokenQuota quota, Instant now) {
        for (QuotaWindow window : QuotaWindow.values()) {
            Long limit = quota.limit(window);
            if (limit != null) {
                QuotaWindow.Period period = window.periodOf(now);
                String key = key(scope, client, model, tenant, window, period);
                long used = this.store.used(key);
                long remaining = Math.max(0, limit - used);
                states.add(new QuotaState(scope, client, model, tenant, window, limit, used, remaining, period.end(),
                        remaining == 0 || this.refusals.containsKey(key)));
            }
        }
    }

    /** Remembers that a quota refused a call, until its window ends. */
    private void refused(Quota quota) {
        if (this.refusals.size() >= MAX_REFUSALS) {
            this.refusals.values().removeIf((end) -> !end.isAfter(quota.now()));
            if (this.refusals.size() >= MAX_REFUSALS) {
                this.refusals.remove(this.refusals.keySet().iterator().next());
            }
        }
        this.refusals.put(quota.counter().key(), quota.period().end());
    }

    private List<Quota> quotas(String client, String model, @Nullable String tenant, Instant now) {
        List<Quota> quotas = new ArrayList<>(2);
        collect(quotas, "model", client, model, null, this.settings.model(client, model), now);
        collect(quotas, "client", client, null, null, this.settings.client(client), now);
        if (tenant != null) {
            collect(quotas, "tenant", null, null, tenant, this.settings.tenant(tenant), now);
        }
        return quotas;
    }

    private static void collect(List<Quota> quotas, String scope, @Nullable String client, @Nullable String model,
            @Nullable String tenant, TokenQuota quota, Instant now) {
        for (QuotaWindow window : QuotaWindow.values()) {
            Long limit = quota.limit(window);
            if (limit != null) {
                QuotaWindow.Period period = window.periodOf(now);
                quotas.add(new Quota(scope, client, model, tenant, limit, period,
                        new QuotaStore.Counter(key(scope, client, model, tenant, window, period), limit, period.end()),
                        now));
            }
        }
    }

    /**
     * The key of one quota's counter in one window, its names escaped, so that no two
     * owners share a key.
     * @param scope {@code model}, {@code client} or {@code tenant}
     * @param client the client of a model or client quota
     * @param model the model of a model quota
     * @param tenant the tenant of a tenant quota
     * @param window the window
     * @param period the period of that window in force
     * @return the key
     */
    public static String key(String scope, @Nullable String client, @Nullable String model, @Nullable String tenant,
            QuotaWindow window, QuotaWindow.Period period) {
        String owner = switch (scope) {
            case "model" -> BucketKeys.escape(String.valueOf(client)) + ":" + BucketKeys.escape(String.valueOf(model));
            case "client" -> BucketKeys.escape(String.valueOf(client));
            default -> BucketKeys.escape(String.valueOf(tenant));
        };
        return scope + ":" + owner + ":" + window.tag() + ":" + period.id();
    }

    private static LlmThrottleException exceeded(String client, String model, @Nullable String tenant, Quota quota) {
        String limit = String.format(Locale.ROOT, "%,d tokens per %s", quota.limit(), quota.period().window().tag());
        Duration untilReset = Duration.between(quota.now(), quota.period().end());
        String resets = limit + ", resetting at " + quota.period().end();
        if (quota.scope().equals("tenant") && tenant != null) {
            return new TenantQuotaExceededException(client, model, tenant, resets, untilReset);
        }
        String owner = quota.scope().equals("model") ? "model '" + model + "' of client '" + client + "'"
                : "client '" + client + "'";
        return new TokenQuotaExceededException(client, model, tenant, owner, resets, untilReset);
    }

    private void track(String tenant, Instant now) {
        String forgotten = this.tenants.track(tenant);
        if (forgotten != null && !this.settings.tenantOverrides().containsKey(forgotten)) {
            // its counters may go: the store keeps what they count in a compact record
            List<Quota> quotas = new ArrayList<>(2);
            collect(quotas, "tenant", null, null, forgotten, this.settings.tenant(forgotten), now);
            this.store.forget(quotas.stream().map(Quota::counter).toList());
        }
    }

    /** One quota of one call, in the window in force. */
    private record Quota(String scope, @Nullable String client, @Nullable String model, @Nullable String tenant,
            long limit, QuotaWindow.Period period, QuotaStore.Counter counter, Instant now) {

        /** The same quota in the window in force at the store's time, if it has one. */
        Quota at(@Nullable Instant storeNow) {
            return (storeNow != null) ? new Quota(this.scope, this.client, this.model, this.tenant, this.limit,
                    this.period.window().periodOf(storeNow), this.counter, storeNow) : this;
        }

    }

    /**
     * What is left of one quota in the window in force, for the endpoint.
     *
     * @param scope {@code model}, {@code client} or {@code tenant}
     * @param client the client of a model or client quota, else {@code null}
     * @param model the model of a model quota, else {@code null}
     * @param tenant the tenant of a tenant quota, else {@code null}
     * @param window the window
     * @param limit the quota
     * @param used the tokens counted in the window so far (reservations of calls in
     * flight included)
     * @param remaining what is left
     * @param resetsAt when the window ends and the count starts again from zero
     * @param exhausted whether nothing is left, or the quota refused the last call that
     * asked it for tokens in this window: calls counted against it fail until
     * {@code resetsAt} (or until a call small enough fits)
     */
    public record QuotaState(String scope, @Nullable String client, @Nullable String model, @Nullable String tenant,
            QuotaWindow window, long limit, long used, long remaining, Instant resetsAt, boolean exhausted) {
    }

}
