package io.github.llmthrottle.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * A model's limits, fallback chain, context window, deployments and other names.
 */
public class ModelProperties extends ModelLimitsProperties {

    /**
     * Models to route to, in order, when this one cannot take a call: a model configured
     * under the same client, or CLIENT:MODEL for a model of another client (another
     * provider), e.g. openai:gpt-4o-mini.
     */
    private List<String> fallback = new ArrayList<>();

    /**
     * Context window of the model in tokens: a request whose estimated input plus
     * max_tokens exceeds it is not sent (@Throttled routes it to the next model whose
     * window fits). Unset means no check.
     */
    private @Nullable Long contextWindow;

    /**
     * Deployments serving the model, by name: other base URLs and/or API keys (other
     * organisations, regions, Azure resources), each with its own limits and circuit; a
     * call goes to the deployment that admits it soonest.
     */
    private Map<String, DeploymentProperties> deployments = new LinkedHashMap<>();

    /**
     * Other names requests give the model (e.g. a provider's alias such as
     * claude-sonnet-4-5-latest), counted against its limits, quotas, circuit and meters;
     * the request is sent with the name it gives. A dated snapshot of the model
     * (MODEL-YYYYMMDD, MODEL-YYYY-MM-DD) needs no alias.
     */
    private List<String> aliases = new ArrayList<>();

    /**
     * Share of this model's limits admitted, configured and provider-reported alike (more
     * than 0, at most 1); unset means the client's utilization.
     */
    private @Nullable Double utilization;

    /**
     * What the model's tokens cost, per million tokens, in llm.throttle.currency.
     */
    @NestedConfigurationProperty
    private final ModelPriceProperties price = new ModelPriceProperties();

    public ModelPriceProperties getPrice() {
        return this.price;
    }

    public List<String> getAliases() {
        return this.aliases;
    }

    public void setAliases(List<String> aliases) {
        this.aliases = aliases;
    }

    public Map<String, DeploymentProperties> getDeployments() {
        return this.deployments;
    }

    public void setDeployments(Map<String, DeploymentProperties> deployments) {
        this.deployments = deployments;
    }

    public List<String> getFallback() {
        return this.fallback;
    }

    public void setFallback(List<String> fallback) {
        this.fallback = fallback;
    }

    public @Nullable Long getContextWindow() {
        return this.contextWindow;
    }

    public void setContextWindow(@Nullable Long contextWindow) {
        this.contextWindow = contextWindow;
    }

    public @Nullable Double getUtilization() {
        return this.utilization;
    }

    public void setUtilization(@Nullable Double utilization) {
        this.utilization = utilization;
    }

}
