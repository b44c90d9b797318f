package io.github.llmthrottle.client;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The one list of where a request carries its caller's credentials: the headers that
 * authenticate it or name the account it bills to, and the query parameters that carry a
 * key. A request sent to a deployment with credentials of its own loses all of them
 * before the deployment's are set, so a caller's key, organisation or project never
 * reaches an endpoint it was not meant for (another organisation's key with the caller's
 * {@code OpenAI-Organization} is refused, and a key in a query string travels in logs).
 */
final class Credentials {

    /**
     * The headers that authenticate a request, in lower case: OpenAI's and most APIs'
     * {@code Authorization}, Anthropic's {@code x-api-key}, Azure OpenAI's
     * {@code api-key}, Google's {@code x-goog-api-key}, Azure API Management's
     * {@code ocp-apim-subscription-key}. A deployment that sets one of them brings its
     * own credentials.
     */
    static final Set<String> AUTHENTICATING_HEADERS = Set.of("authorization", "x-api-key", "api-key", "x-goog-api-key",
            "ocp-apim-subscription-key");

    /**
     * Every header that carries a caller's credential or names the account its key
     * belongs to, in lower case: the {@link #AUTHENTICATING_HEADERS}, OpenAI's
     * {@code OpenAI-Organization} and {@code OpenAI-Project}, Google's
     * {@code x-goog-user-project}, an AWS session token, a proxy's credentials and
     * cookies.
     */
    static final Set<String> HEADERS = union(AUTHENTICATING_HEADERS, Set.of("openai-organization", "openai-project",
            "x-goog-user-project", "x-amz-security-token", "proxy-authorization", "cookie"));

    /**
     * The query parameters that carry a key, in lower case ({@code ?key=} of Google's
     * APIs, {@code ?api-key=}, {@code ?subscription-key=} of Azure API Management, an
     * OAuth {@code ?access_token=}).
     */
    static final Set<String> QUERY_PARAMETERS = Set.of("key", "api-key", "api_key", "apikey", "subscription-key",
            "access_token");

    private Credentials() {
    }

    /**
     * Whether {@code headers} hold a credential: a request with them set authenticates
     * with them.
     * @param headers header names, of any case
     * @return whether one of them is an {@link #AUTHENTICATING_HEADERS authenticating}
     * header
     */
    static boolean authenticates(Set<String> headers) {
        return headers.stream().map((name) -> name.toLowerCase(Locale.ROOT)).anyMatch(AUTHENTICATING_HEADERS::contains);
    }

    /**
     * {@code uri} without the {@link #QUERY_PARAMETERS credential query parameters}
     * (named in any case, encoded or not), everything else as it is encoded.
     * @param uri the URI
     * @return the URI without credentials in its query
     */
    static URI withoutQueryCredentials(URI uri) {
        String query = uri.getRawQuery();
        if (query == null) {
            return uri;
        }
        String kept = Arrays.stream(query.split("&"))
            .filter((parameter) -> !QUERY_PARAMETERS.contains(name(parameter)))
            .collect(Collectors.joining("&"));
        if (kept.length() == query.length()) {
            return uri;
        }
        String string = uri.toString();
        int start = string.indexOf('?');
        int end = start + 1 + query.length();
        return URI.create(string.substring(0, kept.isEmpty() ? start : start + 1) + kept + string.substring(end));
    }

    /** The decoded, lower-case name of one {@code name=value} of a raw query. */
    private static String name(String parameter) {
        int equals = parameter.indexOf('=');
        String name = (equals >= 0) ? parameter.substring(0, equals) : parameter;
        return URLDecoder.decode(name, StandardCharsets.UTF_8).toLowerCase(Locale.ROOT);
    }

    private static Set<String> union(Set<String> first, Set<String> second) {
        return Stream.concat(first.stream(), second.stream()).collect(Collectors.toUnmodifiableSet());
    }

}
