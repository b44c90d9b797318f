package io.github.llmthrottle.langchain4j;

import java.util.List;
import java.util.Map;

import io.github.llmthrottle.client.ProviderResponse;
import io.github.llmthrottle.provider.Headers;

/**
 * A response of LangChain4j's HTTP client as the call pipeline sees it, with its headers
 * kept as LangChain4j's map (case insensitive) to hand back to the model.
 */
interface LangChain4jResponse extends ProviderResponse {

    /**
     * The response headers as LangChain4j holds them.
     * @return the headers by name, empty when the client reported none
     */
    Map<String, List<String>> headerMap();

    @Override
    default Headers headers() {
        return LangChain4jResponses.headers(headerMap());
    }

}
