package io.github.llmthrottle.provider;

import java.net.URI;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What a request to a configured client's base URL is, read from its path in the client's
 * {@link ProviderDialect}: a model call, which the provider meters against the model's
 * limits; a token count, which it meters apart; or anything else (batches, files,
 * uploads, model lists), which passes through untouched.
 * <p>
 * The path is matched by its last segments, so that whatever stands before them (the base
 * URL's own path, such as a gateway's {@code /openai/v1}, an Azure deployment's
 * {@code /openai/deployments/NAME}, or a {@code /v1} the base URL leaves out) does not
 * matter; the query and a trailing slash are ignored. A path matches an entry when it
 * ends with it at a segment boundary:
 * <table>
 * <caption>Paths by dialect</caption>
 * <tr>
 * <th>Dialect</th>
 * <th>{@link #MODEL_CALL}</th>
 * <th>{@link #TOKEN_COUNT}</th>
 * </tr>
 * <tr>
 * <td>{@code ANTHROPIC}</td>
 * <td>{@code /v1/messages}</td>
 * <td>{@code /v1/messages/count_tokens}</td>
 * </tr>
 * <tr>
 * <td>{@code OPENAI}</td>
 * <td>{@code /chat/completions}, {@code /responses}, {@code /completions},
 * {@code /embeddings}, {@code /images/*}, {@code /audio/*}, {@code /moderations}</td>
 * <td>none</td>
 * </tr>
 * <tr>
 * <td>{@code OLLAMA}</td>
 * <td>{@code /api/chat}, {@code /api/generate}, {@code /api/embed},
 * {@code /api/embeddings}</td>
 * <td>none</td>
 * </tr>
 * <tr>
 * <td>{@code GENERIC}</td>
 * <td>every path</td>
 * <td>none</td>
 * </tr>
 * </table>
 * Every other path of the first three dialects is {@link #PASS_THROUGH}: for example
 * Anthropic's {@code /v1/messages/batches}, {@code /v1/files}, {@code /v1/models},
 * OpenAI's {@code /batches}, {@code /files/ID/content}, {@code /uploads},
 * {@code /models}, {@code /responses/ID}, and Ollama's model management
 * ({@code /api/tags}, {@code /api/show}, {@code /api/ps}, {@code /api/version},
 * {@code /api/pull}, {@code /api/push}, {@code /api/create}, {@code /api/copy},
 * {@code /api/delete}).
 */
public enum EndpointClass {

    /**
     * A call of a model: admitted, retried and settled against the model's limits and
     * quotas.
     */
    MODEL_CALL,

    /**
     * Token counting (Anthropic's {@code count_tokens}): retried on 429 and 529 like a
     * model call, but under limits of its own at the provider, so never admitted against
     * the model's requests or tokens, never counted against a quota, never sent to a
     * deployment.
     */
    TOKEN_COUNT,

    /**
     * Anything else: sent as it is, once, neither body buffered; not admitted, charged,
     * retried or redirected.
     */
    PASS_THROUGH;

    private static final List<String> ANTHROPIC_MODEL_CALLS = List.of("/v1/messages");

    private static final List<String> ANTHROPIC_TOKEN_COUNTS = List.of("/v1/messages/count_tokens");

    private static final List<String> OPENAI_MODEL_CALLS = List.of("/chat/completions", "/responses", "/completions",
            "/embeddings", "/moderations");

    /** OpenAI paths whose last segment names the operation: {@code /images/*}. */
    private static final List<String> OPENAI_MODEL_CALL_FAMILIES = List.of("images", "audio");

    private static final List<String> OLLAMA_MODEL_CALLS = List.of("/api/chat", "/api/generate", "/api/embed",
            "/api/embeddings");

    /** Ollama's endpoints that stream unless the request sets {@code "stream": false}. */
    private static final List<String> OLLAMA_STREAMING_CALLS = List.of("/api/chat", "/api/generate");

    /**
     * The class of a request to {@code uri} in {@code dialect}.
     * @param dialect the dialect of the client the request is addressed to
     * @param uri the request's URI (its query is ignored)
     * @return the class
     */
    public static EndpointClass of(ProviderDialect dialect, URI uri) {
        return of(dialect, uri.getRawPath());
    }

    /**
     * The class of a request to {@code path} in {@code dialect}.
     * @param dialect the dialect of the client the request is addressed to
     * @param path the request's path, without its query ({@code null} counts as empty)
     * @return the class
     */
    public static EndpointClass of(ProviderDialect dialect, @Nullable String path) {
        String normalized = withoutTrailingSlashes((path != null) ? path : "");
        return switch (dialect) {
            case ANTHROPIC -> anthropic(normalized);
            case OPENAI -> openAi(normalized);
            case OLLAMA -> endsWithAny(normalized, OLLAMA_MODEL_CALLS) ? MODEL_CALL : PASS_THROUGH;
            case GENERIC -> MODEL_CALL;
        };
    }

    /**
     * Whether a request to {@code path} in {@code dialect} whose body does not say
     * whether it streams is answered with a stream: Ollama's {@code /api/chat} and
     * {@code /api/generate}; no endpoint of the other dialects.
     * @param dialect the dialect of the client the request is addressed to
     * @param path the request's path, without its query ({@code null} counts as empty)
     * @return whether its answer streams by default
     */
    public static boolean streamsByDefault(ProviderDialect dialect, @Nullable String path) {
        return switch (dialect) {
            case OLLAMA -> endsWithAny(withoutTrailingSlashes((path != null) ? path : ""), OLLAMA_STREAMING_CALLS);
            case ANTHROPIC, OPENAI, GENERIC -> false;
        };
    }

    private static EndpointClass anthropic(String path) {
        if (endsWithAny(path, ANTHROPIC_TOKEN_COUNTS)) {
            return TOKEN_COUNT;
        }
        return endsWithAny(path, ANTHROPIC_MODEL_CALLS) ? MODEL_CALL : PASS_THROUGH;
    }

    private static EndpointClass openAi(String path) {
        if (endsWithAny(path, OPENAI_MODEL_CALLS)) {
            return MODEL_CALL;
        }
        int last = path.lastIndexOf('/');
        if (last > 0 && last < path.length() - 1) {
            String family = path.substring(path.lastIndexOf('/', last - 1) + 1, last);
            if (OPENAI_MODEL_CALL_FAMILIES.contains(family)) {
                return MODEL_CALL;
            }
        }
        return PASS_THROUGH;
    }

    /** Whether {@code path} ends with one of {@code tails} at a segment boundary. */
    private static boolean endsWithAny(String path, List<String> tails) {
        for (String tail : tails) {
            // each tail starts with '/': the match begins at a segment
            if (path.endsWith(tail)) {
                return true;
            }
        }
        return false;
    }

    private static String withoutTrailingSlashes(String path) {
        int end = path.length();
        while (end > 0 && path.charAt(end - 1) == '/') {
            end--;
        }
        return path.substring(0, end);
    }

}
