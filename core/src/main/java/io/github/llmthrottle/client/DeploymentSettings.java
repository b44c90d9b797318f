package io.github.llmthrottle.client;

import java.net.URI;
import java.util.Map;

import io.github.llmthrottle.limit.ModelLimits;
import org.jspecify.annotations.Nullable;

/**
 * The validated settings of one deployment of a model
 * ({@code llm.throttle.clients.NAME.models.MODEL.deployments.DEPLOYMENT.*}): another base
 * URL and/or API key serving the same model (another organisation or workspace, region,
 * Azure OpenAI resource), with limits of its own. Its run-time state (limiter, circuit,
 * totals) is a model of the client named {@code MODEL@DEPLOYMENT}
 * ({@link #qualifiedName(String, String)}).
 *
 * @param name the deployment name
 * @param baseUrl the deployment's base URL, or {@code null} for the client's
 * @param apiKey the deployment's API key, or {@code null} for the client's; never printed
 * @param headers headers set on every request to the deployment (replacing the request's
 * of the same name); never printed
 * @param limits the deployment's limits (the model's limits for what it leaves unset)
 */
public record DeploymentSettings(String name, @Nullable URI baseUrl, @Nullable String apiKey,
        Map<String, String> headers, ModelLimits limits) {

    /** Separates the model from the deployment in a deployment's qualified name. */
    public static final char SEPARATOR = '@';

    public DeploymentSettings {
        headers = Map.copyOf(headers);
    }

    /**
     * The name under which a deployment's state is kept, shown and measured:
     * {@code MODEL@DEPLOYMENT}.
     * @param model the model
     * @param deployment the deployment
     * @return the qualified name
     */
    public static String qualifiedName(String model, String deployment) {
        return model + SEPARATOR + deployment;
    }

    @Override
    public String toString() {
        return "DeploymentSettings[name=" + this.name + ", baseUrl=" + this.baseUrl + ", apiKey="
                + ((this.apiKey != null) ? "******" : "none") + ", headers=" + this.headers.keySet() + ", limits="
                + this.limits + "]";
    }

}
