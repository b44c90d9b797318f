package io.github.llmthrottle.langchain4j;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.langchain4j.http.client.HttpRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Notices a LangChain4j model retrying a call that llm-throttle gave up on, and warns
 * once. A model retries every failure itself ({@code maxRetries}, 2 by default in its
 * builders), a throttling failure too, on top of llm-throttle's retries; the hook cannot
 * read the model's setting, since the model is built by the application around the hook's
 * HTTP client. What it sees is the same request sent again at once, on the thread whose
 * call just failed.
 */
final class StackedRetries {

    private static final Log logger = LogFactory.getLog(LangChain4jThrottling.class);

    private final String client;

    private final AtomicBoolean warned = new AtomicBoolean();

    /** The last request llm-throttle gave up on, until it is sent again or not. */
    private volatile @Nullable GivenUp givenUp;

    StackedRetries(String client) {
        this.client = client;
    }

    /**
     * Remembers a request whose call failed with a throttling failure.
     * @param request the request
     */
    void gaveUp(HttpRequest request) {
        if (!this.warned.get()) {
            this.givenUp = new GivenUp(Thread.currentThread(), request.url(), request.body());
        }
    }

    /**
     * Warns, the first time, when {@code request} is the one given up on, sent again.
     * @param request a request about to be sent
     */
    void sending(HttpRequest request) {
        GivenUp last = this.givenUp;
        if (last == null || last.thread() != Thread.currentThread()) {
            // another thread's call: the model would retry on the thread that failed
            return;
        }
        this.givenUp = null;
        if (last.url().equals(request.url()) && Objects.equals(last.body(), request.body())
                && this.warned.compareAndSet(false, true)) {
            logger.warn("A LangChain4j model sent again a request of llm-throttle client '" + this.client
                    + "' that llm-throttle had given up on: the model retries failures itself, which stacks its"
                    + " retries on llm-throttle's. Build the model with maxRetries(0) (with LangChain4j's"
                    + " Spring Boot starter: its max-retries property set to 0).");
        }
    }

    /** A request given up on, and the thread whose call it was. */
    private record GivenUp(Thread thread, String url, @Nullable String body) {
    }

}
