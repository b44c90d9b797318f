package io.github.llmthrottle.client;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import io.github.llmthrottle.limit.ClientLimits;
import io.github.llmthrottle.limit.LimiterOptions;
import io.github.llmthrottle.limit.ModelLimits;
import io.github.llmthrottle.limit.TenantLimits;
import io.github.llmthrottle.provider.RequestBodyReader;
import io.github.llmthrottle.quota.QuotaSettings;
import io.github.llmthrottle.routing.CircuitSettings;
import org.jspecify.annotations.Nullable;

/**
 * The validated, immutable settings of llm-throttle as a whole.
 *
 * @param clients the clients by name, in configuration order
 * @param queueCapacity waiting calls per client and model
 * @param maxWait default longest wait for admission
 * @param defaultTenantLimits limits of every tenant without an override, or {@code null}
 * @param tenantOverrides limits by tenant id
 * @param circuit settings of every model's circuit
 * @param limiter the adaptive concurrency limit's start and default ceiling, and the slow
 * start, of every model
 * @param quotas the token quotas per day and month of every client, model and tenant
 * @param documentTokens the estimated input tokens of a document given by URL or file id
 */
public record ThrottleSettings(Map<String, ClientSettings> clients, int queueCapacity, Duration maxWait,
        @Nullable TenantLimits defaultTenantLimits, Map<String, TenantLimits> tenantOverrides, CircuitSettings circuit,
        LimiterOptions limiter, QuotaSettings quotas, long documentTokens) {

    /**
     * Settings with the default estimate of documents given by reference.
     * @param clients the clients by name, in configuration order
     * @param queueCapacity waiting calls per client and model
     * @param maxWait default longest wait for admission
     * @param defaultTenantLimits limits of every tenant without an override, or
     * {@code null}
     * @param tenantOverrides limits by tenant id
     * @param circuit settings of every model's circuit
     * @param limiter the adaptive concurrency limit's start and default ceiling, and the
     * slow start, of every model
     * @param quotas the token quotas per day and month of every client, model and tenant
     */
    public ThrottleSettings(Map<String, ClientSettings> clients, int queueCapacity, Duration maxWait,
            @Nullable TenantLimits defaultTenantLimits, Map<String, TenantLimits> tenantOverrides,
            CircuitSettings circuit, LimiterOptions limiter, QuotaSettings quotas) {
        this(clients, queueCapacity, maxWait, defaultTenantLimits, tenantOverrides, circuit, limiter, quotas,
                RequestBodyReader.DEFAULT_DOCUMENT_TOKENS);
    }

    /**
     * Settings without token quotas.
     * @param clients the clients by name, in configuration order
     * @param queueCapacity waiting calls per client and model
     * @param maxWait default longest wait for admission
     * @param defaultTenantLimits limits of every tenant without an override, or
     * {@code null}
     * @param tenantOverrides limits by tenant id
     * @param circuit settings of every model's circuit
     * @param limiter the adaptive concurrency limit's start and default ceiling, and the
     * slow start, of every model
     */
    public ThrottleSettings(Map<String, ClientSettings> clients, int queueCapacity, Duration maxWait,
            @Nullable TenantLimits defaultTenantLimits, Map<String, TenantLimits> tenantOverrides,
            CircuitSettings circuit, LimiterOptions limiter) {
        this(clients, queueCapacity, maxWait, defaultTenantLimits, tenantOverrides, circuit, limiter,
                QuotaSettings.NONE);
    }

    /**
     * The defaults: no clients, 1000 waiting calls per client and model, 30s longest
     * wait, no tenant limits, the default circuit settings, concurrency limits and slow
     * start.
     */
    public static final ThrottleSettings DEFAULTS = new ThrottleSettings(Map.of(), 1000, Duration.ofSeconds(30), null,
            Map.of(), CircuitSettings.DEFAULTS, LimiterOptions.DEFAULTS, QuotaSettings.NONE);

    public ThrottleSettings {
        clients = Collections.unmodifiableMap(new LinkedHashMap<>(clients));
        tenantOverrides = Map.copyOf(tenantOverrides);
    }

    /**
     * Settings with the default concurrency limits and slow start.
     * @param clients the clients by name, in configuration order
     * @param queueCapacity waiting calls per client and model
     * @param maxWait default longest wait for admission
     * @param defaultTenantLimits limits of every tenant without an override, or
     * {@code null}
     * @param tenantOverrides limits by tenant id
     * @param circuit settings of every model's circuit
     */
    public ThrottleSettings(Map<String, ClientSettings> clients, int queueCapacity, Duration maxWait,
            @Nullable TenantLimits defaultTenantLimits, Map<String, TenantLimits> tenantOverrides,
            CircuitSettings circuit) {
        this(clients, queueCapacity, maxWait, defaultTenantLimits, tenantOverrides, circuit, LimiterOptions.DEFAULTS,
                QuotaSettings.NONE);
    }

    /**
     * Settings with the default circuit settings.
     * @param clients the clients by name, in configuration order
     * @param queueCapacity waiting calls per client and model
     * @param maxWait default longest wait for admission
     * @param defaultTenantLimits limits of every tenant without an override, or
     * {@code null}
     * @param tenantOverrides limits by tenant id
     */
    public ThrottleSettings(Map<String, ClientSettings> clients, int queueCapacity, Duration maxWait,
            @Nullable TenantLimits defaultTenantLimits, Map<String, TenantLimits> tenantOverrides) {
        this(clients, queueCapacity, maxWait, defaultTenantLimits, tenantOverrides, CircuitSettings.DEFAULTS);
    }

    /**
     * A copy with other clients.
     * @param clients the clients by name, in configuration order
     * @return the new settings
     */
    public ThrottleSettings withClients(Map<String, ClientSettings> clients) {
        return new ThrottleSettings(clients, this.queueCapacity, this.maxWait, this.defaultTenantLimits,
                this.tenantOverrides, this.circuit, this.limiter, this.quotas, this.documentTokens);
    }

    /**
     * A copy with another queue capacity.
     * @param queueCapacity waiting calls per client and model
     * @return the new settings
     */
    public ThrottleSettings withQueueCapacity(int queueCapacity) {
        return new ThrottleSettings(this.clients, queueCapacity, this.maxWait, this.defaultTenantLimits,
                this.tenantOverrides, this.circuit, this.limiter, this.quotas, this.documentTokens);
    }

    /**
     * A copy with another default longest wait for admission.
     * @param maxWait default longest wait for admission
     * @return the new settings
     */
    public ThrottleSettings withMaxWait(Duration maxWait) {
        return new ThrottleSettings(this.clients, this.queueCapacity, maxWait, this.defaultTenantLimits,
                this.tenantOverrides, this.circuit, this.limiter, this.quotas, this.documentTokens);
    }

    /**
     * A copy with other limits for tenants without an override.
     * @param defaultTenantLimits limits of every tenant without an override, or
     * {@code null}
     * @return the new settings
     */
    public ThrottleSettings withDefaultTenantLimits(@Nullable TenantLimits defaultTenantLimits) {
        return new ThrottleSettings(this.clients, this.queueCapacity, this.maxWait, defaultTenantLimits,
                this.tenantOverrides, this.circuit, this.limiter, this.quotas, this.documentTokens);
    }

    /**
     * A copy with other limits by tenant id.
     * @param tenantOverrides limits by tenant id
     * @return the new settings
     */
    public ThrottleSettings withTenantOverrides(Map<String, TenantLimits> tenantOverrides) {
        return new ThrottleSettings(this.clients, this.queueCapacity, this.maxWait, this.defaultTenantLimits,
                tenantOverrides, this.circuit, this.limiter, this.quotas, this.documentTokens);
    }

    /**
     * A copy with other circuit settings.
     * @param circuit settings of every model's circuit
     * @return the new settings
     */
    public ThrottleSettings withCircuit(CircuitSettings circuit) {
        return new ThrottleSettings(this.clients, this.queueCapacity, this.maxWait, this.defaultTenantLimits,
                this.tenantOverrides, circuit, this.limiter, this.quotas, this.documentTokens);
    }

    /**
     * A copy with other concurrency limits and slow start.
     * @param limiter the adaptive concurrency limit's start and default ceiling, and the
     * slow start
     * @return the new settings
     */
    public ThrottleSettings withLimiter(LimiterOptions limiter) {
        return new ThrottleSettings(this.clients, this.queueCapacity, this.maxWait, this.defaultTenantLimits,
                this.tenantOverrides, this.circuit, limiter, this.quotas, this.documentTokens);
    }

    /**
     * A copy with other token quotas.
     * @param quotas the token quotas per day and month of every client, model and tenant
     * @return the new settings
     */
    public ThrottleSettings withQuotas(QuotaSettings quotas) {
        return new ThrottleSettings(this.clients, this.queueCapacity, this.maxWait, this.defaultTenantLimits,
                this.tenantOverrides, this.circuit, this.limiter, quotas, this.documentTokens);
    }

    /**
     * A copy with another estimate of documents given by reference.
     * @param documentTokens the estimated input tokens of a document given by URL or file
     * id
     * @return the new settings
     */
    public ThrottleSettings withDocumentTokens(long documentTokens) {
        return new ThrottleSettings(this.clients, this.queueCapacity, this.maxWait, this.defaultTenantLimits,
                this.tenantOverrides, this.circuit, this.limiter, this.quotas, documentTokens);
    }

    /**
     * The limits of every client's models and of their deployments (as
     * {@code MODEL@DEPLOYMENT}), as admission control takes them.
     * @return the limits by client name
     */
    public Map<String, ClientLimits> clientLimits() {
        Map<String, ClientLimits> limits = new LinkedHashMap<>();
        this.clients.forEach((name, client) -> {
            Map<String, ModelLimits> models = new LinkedHashMap<>();
            client.models().forEach((model, settings) -> {
                models.put(model, settings.limits());
                // each deployment is limited on its own, under MODEL@DEPLOYMENT
                settings.deployments()
                    .forEach((deploymentName, deployment) -> models
                        .put(DeploymentSettings.qualifiedName(model, deploymentName), deployment.limits()));
            });
            limits.put(name, new ClientLimits(client.defaultLimits(), models));
        });
        return limits;
    }

    /**
     * The limits that apply to {@code tenant}.
     * @param tenant the tenant id
     * @return its limits, or {@code null} when tenants are not limited
     */
    public @Nullable TenantLimits tenantLimits(String tenant) {
        TenantLimits override = this.tenantOverrides.get(tenant);
        return (override != null) ? override : this.defaultTenantLimits;
    }

}
