package io.github.llmthrottle.retry;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedByInterruptException;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one rule that tells a caller's cancellation from a provider's failure, with the
 * exceptions the HTTP libraries under the adapters throw.
 */
class CancellationTests {

    @AfterEach
    void clearInterrupt() {
        Thread.interrupted();
    }

    @Test
    void okHttpsCallTimeoutOnAThreadThatWasNotInterruptedIsATimeout() {
        InterruptedIOException callTimeout = new InterruptedIOException("timeout");
        callTimeout.initCause(new SocketException("Socket closed"));
        assertThat(Cancellation.isCancellation(callTimeout)).isFalse();
        assertThat(Cancellation.isTimeout(callTimeout)).isTrue();
        assertThat(ResponseClassifier.ioError(callTimeout).retryable()).isTrue();
    }

    @Test
    void readAndRequestTimeoutsAreTimeouts() {
        assertThat(Cancellation.isCancellation(new SocketTimeoutException("Read timed out"))).isFalse();
        assertThat(Cancellation.isCancellation(new HttpTimeoutException("request timed out"))).isFalse();
        assertThat(Cancellation.isTimeout(new SocketTimeoutException("connect timed out"))).isTrue();
    }

    @Test
    void anyFailureOnAnInterruptedThreadIsACancellationEvenOneThatLooksLikeATimeout() {
        Thread.currentThread().interrupt();
        assertThat(Cancellation.isCancellation(new InterruptedIOException("timeout"))).isTrue();
        assertThat(Cancellation.isCancellation(new SocketTimeoutException("timeout"))).isTrue();
        assertThat(Cancellation.isCancellation(new IOException("Connection reset"))).isTrue();
    }

    @Test
    void okHttpsCancelledCallAndOtherInterruptionsAreCancellations() {
        assertThat(Cancellation.isCancellation(new IOException("Canceled"))).isTrue();
        assertThat(Cancellation.isCancellation(new InterruptedIOException("Interrupted while waiting"))).isTrue();
        assertThat(Cancellation.isCancellation(new ClosedByInterruptException())).isTrue();
    }

    @Test
    void whatAnAdapterReportsIsReadAsItSays() {
        IOException closed = new SocketException("Socket closed");
        assertThat(Cancellation.isCancellation(Cancellation.timedOut(closed))).isFalse();
        assertThat(Cancellation.timedOut(closed)).hasCause(closed);
        assertThat(Cancellation.isCancellation(Cancellation.cancelled(closed))).isTrue();
        assertThat(Cancellation.cancelled(closed)).hasCause(closed);
    }

    @Test
    void otherIoErrorsAreTheProvidersFailure() {
        assertThat(Cancellation.isCancellation(new SocketException("Connection reset"))).isFalse();
        assertThat(Cancellation.isCancellation(new IOException("canceled due to something"))).isFalse();
        assertThat(Cancellation.isTimeout(new IOException("unexpected end of stream"))).isFalse();
    }

}
