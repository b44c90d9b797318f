package io.github.llmthrottle.langchain4j;

import java.util.List;
import java.util.Map;

import dev.langchain4j.http.client.HttpRequest;

/**
 * The headers of one attempt's response, as far as the LangChain4j client below the hook
 * lets them be seen: its SPI reports an error response by status and body only, so a
 * 429's {@code retry-after} is known only where the client's own HTTP library is reached
 * ({@link JdkResponseHeaders}). Closed when the attempt has its response.
 */
interface AttemptHeaders extends AutoCloseable {

    /** For a client whose error responses' headers cannot be seen. */
    AttemptHeaders NONE = new AttemptHeaders() {

        @Override
        public HttpRequest tag(HttpRequest request) {
            return request;
        }

        @Override
        public Map<String, List<String>> recorded() {
            return Map.of();
        }

        @Override
        public void close() {
        }

    };

    /**
     * The request as it is sent for this attempt, marked so that its response's headers
     * are recorded.
     * @param request the attempt's request
     * @return the request to send
     */
    HttpRequest tag(HttpRequest request);

    /**
     * The headers recorded for this attempt's response.
     * @return the headers by name, empty when none were recorded
     */
    Map<String, List<String>> recorded();

    /** Stops recording for this attempt. */
    @Override
    void close();

}
