package io.github.llmthrottle.client;

import java.net.URI;
import java.util.Map;

/**
 * Where one attempt of a call goes when its model is served by several deployments: the
 * request's URI moved onto the chosen deployment's base URL, and the headers to set on it
 * (the deployment's authentication and own headers, replacing any of the same name).
 *
 * @param deployment the qualified name of the deployment ({@code MODEL@DEPLOYMENT})
 * @param uri the URI to send the request to
 * @param headers headers to set, replacing the request's of the same name (case
 * insensitively)
 */
public record ProviderTarget(String deployment, URI uri, Map<String, String> headers) {

    public ProviderTarget {
        headers = Map.copyOf(headers);
    }

    @Override
    public String toString() {
        // the headers hold API keys
        return "ProviderTarget[deployment=" + this.deployment + ", uri=" + this.uri + ", headers="
                + this.headers.keySet() + "]";
    }

}
