package io.github.llmthrottle.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * One deployment of a model: where it is served and its limits. Unset limits inherit the
 * model's.
 */
public class DeploymentProperties extends ModelLimitsProperties {

    /**
     * Base URL of the deployment; the path of each request below the client's base URL is
     * kept. Unset means the client's base URL.
     */
    private @Nullable String baseUrl;

    /**
     * API key of the deployment, sent as the client's provider sends it. Unset means the
     * client's API key. Never logged or exposed.
     */
    private @Nullable String apiKey;

    /**
     * Headers set on every request to the deployment, replacing the request's of the same
     * name (for example Azure's api-key). Never logged or exposed.
     */
    private Map<String, String> defaultHeaders = new LinkedHashMap<>();

    public @Nullable String getBaseUrl() {
        return this.baseUrl;
    }

    public void setBaseUrl(@Nullable String baseUrl) {
        this.baseUrl = baseUrl;
    }

    public @Nullable String getApiKey() {
        return this.apiKey;
    }

    public void setApiKey(@Nullable String apiKey) {
        this.apiKey = apiKey;
    }

    public Map<String, String> getDefaultHeaders() {
        return this.defaultHeaders;
    }

    public void setDefaultHeaders(Map<String, String> defaultHeaders) {
        this.defaultHeaders = defaultHeaders;
    }

    @Override
    public String toString() {
        return "DeploymentProperties[baseUrl=" + this.baseUrl + ", apiKey=" + ((this.apiKey != null) ? "******" : null)
                + ", defaultHeaders=" + this.defaultHeaders.keySet() + "]";
    }

}
