package io.github.llmthrottle.langchain4j;

import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.langchain4j.http.client.HttpClient;
import dev.langchain4j.http.client.HttpRequest;
import dev.langchain4j.http.client.SuccessfulHttpResponse;
import dev.langchain4j.http.client.sse.ServerSentEventListener;
import dev.langchain4j.http.client.sse.ServerSentEventParser;

/**
 * One attempt through a LangChain4j {@link HttpClient}'s streaming {@code execute} (a
 * blocking call's too, so that the call pipeline reads every body), turned from the SPI's
 * push style (the client calls a parser with the body on a thread of its own) into the
 * response the call pipeline pulls from: this handoff is the parser and the listener
 * given to the client, hands the live body to the waiting attempt, and keeps the client's
 * thread in {@link #parse} until that response is closed, since the client closes the
 * body when {@code parse} returns. A response nobody waits for any more (the attempt was
 * interrupted) is closed at once, so the client's thread and connection never stay
 * behind.
 */
final class StreamHandoff implements ServerSentEventParser, ServerSentEventListener {

    /**
     * The threads that hand requests to the clients: daemons, created as needed and gone
     * after a minute idle.
     */
    private static final ExecutorService SENDERS = Executors.newCachedThreadPool((task) -> {
        Thread thread = new Thread(task, "llm-throttle-langchain4j-send");
        thread.setDaemon(true);
        return thread;
    });

    private final CompletableFuture<Object> outcome = new CompletableFuture<>();

    private final CountDownLatch closed = new CountDownLatch(1);

    private volatile int status = 200;

    private volatile Map<String, List<String>> headers = Map.of();

    /**
     * Sends {@code request} once through {@code delegate} and waits until its response
     * opens or fails.
     * @param delegate the LangChain4j client that sends it
     * @param request the request
     * @param headers where the headers of an error response are recorded, if anywhere
     * @return the live response, or an error response with the status and body the client
     * reported
     * @throws IOException on an I/O error, or when interrupted while waiting
     */
    static LangChain4jResponse send(HttpClient delegate, HttpRequest request, AttemptHeaders headers)
            throws IOException {
        try (headers) {
            StreamHandoff handoff = new StreamHandoff();
            HttpRequest tagged = headers.tag(request);
            // never on the waiting thread: a client may call parse on the thread that
            // called execute (LangChain4j's JDK client does when the response is there
            // before its callback is attached), and parse holds its thread until the
            // response is closed
            SENDERS.execute(() -> {
                try {
                    delegate.execute(tagged, handoff, handoff);
                }
                catch (RuntimeException | Error ex) {
                    handoff.outcome.complete(ex);
                }
            });
            return handoff.await(headers);
        }
    }

    private LangChain4jResponse await(AttemptHeaders headers) throws IOException {
        Object result;
        try {
            result = this.outcome.get();
        }
        catch (InterruptedException ex) {
            // nobody reads the response any more: close it if it came in meanwhile
            if (!this.outcome.complete(ex) && this.outcome.getNow(null) instanceof StreamedResponse response) {
                response.close();
            }
            Thread.currentThread().interrupt();
            InterruptedIOException interrupted = new InterruptedIOException("Interrupted while waiting for a response");
            interrupted.initCause(ex);
            throw interrupted;
        }
        catch (ExecutionException ex) {
            throw new IOException(ex.getCause());
        }
        if (result instanceof StreamedResponse response) {
            return response;
        }
        return LangChain4jResponses.fromFailure((Throwable) result, headers.recorded());
    }

    @Override
    public void onOpen(SuccessfulHttpResponse response) {
        this.status = response.statusCode();
        this.headers = response.headers();
    }

    @Override
    public void parse(InputStream body, ServerSentEventListener listener) {
        StreamedResponse response = new StreamedResponse(this.status, this.headers, body, this.closed);
        if (!this.outcome.complete(response)) {
            // the attempt was abandoned before the body came
            response.close();
            return;
        }
        try {
            this.closed.await();
        }
        catch (InterruptedException ex) {
            // the client's own thread is stopped: the body goes with it
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void onError(Throwable throwable) {
        this.outcome.complete(throwable);
    }

    @Override
    public void onClose() {
        this.outcome.complete(new IOException("The response ended before its body was handed over"));
    }

    /**
     * The live body of a streamed response, the client's thread waiting until it is
     * closed.
     */
    private static final class StreamedResponse implements LangChain4jResponse {

        private final int status;

        private final Map<String, List<String>> headers;

        private final InputStream body;

        private final CountDownLatch closed;

        StreamedResponse(int status, Map<String, List<String>> headers, InputStream body, CountDownLatch closed) {
            this.status = status;
            this.headers = headers;
            this.body = body;
            this.closed = closed;
        }

        @Override
        public int status() {
            return this.status;
        }

        @Override
        public Map<String, List<String>> headerMap() {
            return this.headers;
        }

        @Override
        public InputStream body() {
            return this.body;
        }

        @Override
        public void close() {
            try {
                this.body.close();
            }
            catch (IOException ex) {
                // closed on the way out: nothing more to read or release
            }
            finally {
                this.closed.countDown();
            }
        }

        @Override
        public String toString() {
            return "StreamedResponse[status=" + this.status + "]";
        }

    }

}
