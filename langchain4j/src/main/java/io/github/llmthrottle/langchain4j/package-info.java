/**
 * Adapter of LangChain4j's pluggable HTTP client ({@code langchain4j-http-client}) to the
 * call pipeline of {@link io.github.llmthrottle.client.ThrottledClient}, for a
 * LangChain4j chat model built in code: a one-line hook on the model's builder.
 */
@NullMarked
package io.github.llmthrottle.langchain4j;

import org.jspecify.annotations.NullMarked;
