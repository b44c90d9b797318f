package io.github.llmthrottle.client;

import java.net.URI;
import java.util.Map;
import java.util.Set;

/**
 * Where one attempt of a call goes when its model is served by several deployments: the
 * request's URI moved onto the chosen deployment's base URL (without the caller's
 * credentials in its query when the deployment brings its own), the headers to set on it
 * (the deployment's authentication and own headers, replacing any of the same name), and
 * the headers to take off it (the request's own credentials, when the deployment brings
 * its own: they must not reach another organisation's or provider's endpoint).
 *
 * @param deployment the qualified name of the deployment ({@code MODEL@DEPLOYMENT})
 * @param uri the URI to send the request to
 * @param headers headers to set, replacing the request's of the same name (case
 * insensitively)
 * @param removedHeaders names of headers to remove from the request (case insensitively)
 * before {@code headers} are set
 */
public record ProviderTarget(String deployment, URI uri, Map<String, String> headers, Set<String> removedHeaders) {

    public ProviderTarget {
        headers = Map.copyOf(headers);
        removedHeaders = Set.copyOf(removedHeaders);
    }

    /**
     * A target that removes no header.
     * @param deployment the qualified name of the deployment ({@code MODEL@DEPLOYMENT})
     * @param uri the URI to send the request to
     * @param headers headers to set, replacing the request's of the same name (case
     * insensitively)
     */
    public ProviderTarget(String deployment, URI uri, Map<String, String> headers) {
        this(deployment, uri, headers, Set.of());
    }

    @Override
    public String toString() {
        // the headers hold API keys
        return "ProviderTarget[deployment=" + this.deployment + ", uri=" + this.uri + ", headers="
                + this.headers.keySet() + ", removedHeaders=" + this.removedHeaders + "]";
    }

}
