package io.github.llmthrottle.client;

import java.net.URI;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

import io.github.llmthrottle.budget.Budgets;
import io.github.llmthrottle.limit.LimiterRegistry;
import io.github.llmthrottle.observation.LlmThrottleObservations;
import io.github.llmthrottle.provider.RequestBodyReader;
import io.github.llmthrottle.provider.TokenEstimator;
import io.github.llmthrottle.provider.UsageReader;
import io.github.llmthrottle.quota.TokenQuotas;
import io.github.llmthrottle.routing.CircuitStore;
import io.github.llmthrottle.time.TimeSource;
import org.jspecify.annotations.Nullable;

/**
 * Every configured client and its models at run time: what the adapters route requests
 * to, and what the actuator endpoint and metrics read.
 */
public final class LlmThrottleRegistry {

    private final ThrottleSettings settings;

    private final Map<String, ThrottledClient> clients;

    private final TokenQuotas quotas;

    private final Budgets budgets;

    /**
     * Creates a registry.
     * @param settings the validated settings
     * @param clientFactory creates the run-time client of each configured client
     */
    public LlmThrottleRegistry(ThrottleSettings settings, Function<ClientSettings, ThrottledClient> clientFactory) {
        this(settings, clientFactory, TokenQuotas.none());
    }

    /**
     * Creates a registry whose clients count token quotas.
     * @param settings the validated settings
     * @param clientFactory creates the run-time client of each configured client
     * @param quotas the token quotas over days and months the clients count
     */
    public LlmThrottleRegistry(ThrottleSettings settings, Function<ClientSettings, ThrottledClient> clientFactory,
            TokenQuotas quotas) {
        this(settings, clientFactory, quotas, Budgets.none());
    }

    /**
     * Creates a registry whose clients count token quotas and budgets in money.
     * @param settings the validated settings
     * @param clientFactory creates the run-time client of each configured client
     * @param quotas the token quotas over days and months the clients count
     * @param budgets the prices and budgets in money the clients count
     */
    public LlmThrottleRegistry(ThrottleSettings settings, Function<ClientSettings, ThrottledClient> clientFactory,
            TokenQuotas quotas, Budgets budgets) {
        this.quotas = quotas;
        this.budgets = budgets;
        this.settings = settings;
        Map<String, ThrottledClient> clients = new LinkedHashMap<>();
        settings.clients().forEach((name, client) -> clients.put(name, clientFactory.apply(client)));
        this.clients = Collections.unmodifiableMap(clients);
    }

    /**
     * Creates the registry of every configured client.
     * @param settings the validated settings
     * @param limiters admission control of every client and model
     * @param estimator estimates input tokens before a call
     * @param tenantResolver resolves the tenant of requests made outside a
     * {@code @Throttled} method
     * @param time the time source (clocks, sleeping between retries)
     * @param observer observes calls, attempts and retries
     * @return the registry
     */
    public static LlmThrottleRegistry create(ThrottleSettings settings, LimiterRegistry limiters,
            TokenEstimator estimator, TenantResolver tenantResolver, TimeSource time, ThrottleObserver observer) {
        return create(settings, limiters, estimator, tenantResolver, time, observer, LlmThrottleObservations.NONE,
                TokenQuotas.none());
    }

    /**
     * Creates the registry of every configured client, counting token quotas.
     * @param settings the validated settings
     * @param limiters admission control of every client and model
     * @param estimator estimates input tokens before a call
     * @param tenantResolver finds the tenant of a request made outside a
     * {@code @Throttled} method
     * @param time the time source (clocks, sleeping between retries)
     * @param observer observes calls, attempts and retries
     * @param quotas the token quotas over days and months
     * @return the registry
     */
    public static LlmThrottleRegistry create(ThrottleSettings settings, LimiterRegistry limiters,
            TokenEstimator estimator, TenantResolver tenantResolver, TimeSource time, ThrottleObserver observer,
            TokenQuotas quotas) {
        return create(settings, limiters, estimator, tenantResolver, time, observer, LlmThrottleObservations.NONE,
                quotas);
    }

    /**
     * Creates the registry of every configured client, whose calls and attempts are
     * observed ({@code llm.throttle.call}, {@code llm.throttle.attempt}).
     * @param settings the validated settings
     * @param limiters admission control of every client and model
     * @param estimator estimates input tokens before a call
     * @param tenantResolver resolves the tenant of requests made outside a
     * {@code @Throttled} method
     * @param time the time source (clocks, sleeping between retries)
     * @param observer observes calls, attempts and retries
     * @param observations where calls and attempts are observed
     * @param quotas the token quotas over days and months
     * @return the registry
     */
    public static LlmThrottleRegistry create(ThrottleSettings settings, LimiterRegistry limiters,
            TokenEstimator estimator, TenantResolver tenantResolver, TimeSource time, ThrottleObserver observer,
            LlmThrottleObservations observations, TokenQuotas quotas) {
        return create(settings, limiters, estimator, tenantResolver, time, observer, observations, quotas,
                Budgets.none());
    }

    /**
     * Creates the registry of every configured client, counting token quotas and budgets
     * in money, whose calls and attempts are observed.
     * @param settings the validated settings
     * @param limiters admission control of every client and model
     * @param estimator estimates input tokens before a call
     * @param tenantResolver resolves the tenant of requests made outside a
     * {@code @Throttled} method
     * @param time the time source (clocks, sleeping between retries)
     * @param observer observes calls, attempts and retries
     * @param observations where calls and attempts are observed
     * @param quotas the token quotas over days and months
     * @param budgets the prices and budgets in money
     * @return the registry
     */
    public static LlmThrottleRegistry create(ThrottleSettings settings, LimiterRegistry limiters,
            TokenEstimator estimator, TenantResolver tenantResolver, TimeSource time, ThrottleObserver observer,
            LlmThrottleObservations observations, TokenQuotas quotas, Budgets budgets) {
        return create(settings, limiters, estimator, tenantResolver, time, observer, observations, quotas, budgets,
                CircuitStore.LOCAL);
    }

    /**
     * Creates the registry of every configured client, as the other methods do, with the
     * circuits of the models in {@code circuits} (shared across instances by a shared
     * store).
     * @param settings the validated settings
     * @param limiters admission control of every client and model
     * @param estimator estimates input tokens before a call
     * @param tenantResolver resolves the tenant of requests made outside a
     * {@code @Throttled} method
     * @param time the time source (clocks, sleeping between retries)
     * @param observer observes calls, attempts and retries
     * @param observations where calls and attempts are observed
     * @param quotas the token quotas over days and months
     * @param budgets the prices and budgets in money
     * @param circuits where the circuits of the models live
     * @return the registry
     */
    public static LlmThrottleRegistry create(ThrottleSettings settings, LimiterRegistry limiters,
            TokenEstimator estimator, TenantResolver tenantResolver, TimeSource time, ThrottleObserver observer,
            LlmThrottleObservations observations, TokenQuotas quotas, Budgets budgets, CircuitStore circuits) {
        RequestBodyReader requestReader = new RequestBodyReader(settings.documentTokens());
        UsageReader usageReader = new UsageReader();
        return new LlmThrottleRegistry(settings,
                (client) -> new ThrottledClient(client, limiters, estimator, tenantResolver, observer, observations,
                        requestReader, usageReader, settings.circuit(), time, quotas, budgets, circuits),
                quotas, budgets);
    }

    /**
     * The token quotas over days and months that every client counts.
     * @return the quotas
     */
    public TokenQuotas getQuotas() {
        return this.quotas;
    }

    /**
     * The prices and budgets in money that every client counts.
     * @return the budgets
     */
    public Budgets getBudgets() {
        return this.budgets;
    }

    public ThrottleSettings getSettings() {
        return this.settings;
    }

    /**
     * The configured clients, in configuration order.
     * @return the clients by name
     */
    public Map<String, ThrottledClient> getClients() {
        return this.clients;
    }

    /**
     * The client named {@code name}.
     * @param name the client name
     * @return the client, or {@code null} when none is configured under that name
     */
    public @Nullable ThrottledClient getClient(String name) {
        return this.clients.get(name);
    }

    /**
     * The client a request to {@code uri} belongs to: the one whose base URL's host it is
     * addressed to (when several clients share a host, the one with the longest base path
     * the request's path starts with, else the first).
     * @param uri the request's URI
     * @return the client, or {@code null} when the request goes elsewhere
     */
    public @Nullable ThrottledClient resolve(URI uri) {
        ThrottledClient best = null;
        int bestLength = -1;
        ThrottledClient sameHost = null;
        for (ThrottledClient client : this.clients.values()) {
            URI base = client.getSettings().baseUrl();
            if (sameOrigin(base, uri)) {
                sameHost = (sameHost != null) ? sameHost : client;
                String basePath = normalizedPath(base);
                String path = (uri.getRawPath() != null) ? uri.getRawPath() : "";
                if (path.startsWith(basePath) && basePath.length() > bestLength) {
                    best = client;
                    bestLength = basePath.length();
                }
            }
        }
        // every request to a configured client's host is throttled, even outside its
        // base path: the provider meters the whole host's API key, not one path
        return (best != null) ? best : sameHost;
    }

    private static boolean sameOrigin(URI base, URI uri) {
        // equalsIgnoreCase: no lower-cased copies, since every request of every
        // Boot-built
        // RestClient is asked about
        return base.getScheme().equalsIgnoreCase(uri.getScheme()) && base.getHost().equalsIgnoreCase(uri.getHost())
                && port(base) == port(uri);
    }

    private static int port(URI uri) {
        if (uri.getPort() != -1) {
            return uri.getPort();
        }
        return "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
    }

    private static String normalizedPath(URI base) {
        String path = (base.getRawPath() != null) ? base.getRawPath() : "";
        return path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }

}
