package io.github.llmthrottle.client;

import java.time.Duration;
import java.util.List;

import io.github.llmthrottle.Priority;
import org.jspecify.annotations.Nullable;

/**
 * An observer that records the priority and tenant of every admission, as
 * {@code PRIORITY/tenant}: the tenant of the call's caller, as the pipeline tells each
 * call's view of the observer ({@link #forCall}). Shared by the adapters' tests.
 */
public final class AdmissionRecorder implements ThrottleObserver {

    private final List<String> admitted;

    private final @Nullable String tenant;

    /**
     * Records into {@code admitted}.
     * @param admitted where each admission is added (a thread-safe list: calls run on
     * many threads)
     */
    public AdmissionRecorder(List<String> admitted) {
        this(admitted, null);
    }

    private AdmissionRecorder(List<String> admitted, @Nullable String tenant) {
        this.admitted = admitted;
        this.tenant = tenant;
    }

    @Override
    public ThrottleObserver forCall(Caller caller) {
        return new AdmissionRecorder(this.admitted, caller.tenant());
    }

    @Override
    public void onAdmitted(String client, String model, Priority priority, Duration waited) {
        this.admitted.add(priority + "/" + this.tenant);
    }

}
