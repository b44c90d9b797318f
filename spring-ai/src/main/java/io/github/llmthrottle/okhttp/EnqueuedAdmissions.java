package io.github.llmthrottle.okhttp;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import io.github.llmthrottle.client.HeldAdmission;
import io.github.llmthrottle.client.LlmThrottleRegistry;
import io.github.llmthrottle.client.ThrottledClient;
import io.github.llmthrottle.provider.EndpointClass;
import okhttp3.Call;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.internal.connection.RealCall;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * The first admissions of enqueued calls ({@code Call.enqueue}), waited for as queue
 * entries before the calls run ({@link DispatcherExecutor}), and held for the
 * interceptor's first attempt ({@link OkHttpThrottlingInterceptor}), by call.
 * <p>
 * OkHttp hands its executor a {@code RealCall.AsyncCall} (a Kotlin internal class whose
 * {@code getCall()} is public in bytecode), read once by reflection; should OkHttp change
 * it, enqueued calls wait for admission on the executor's thread as before.
 */
final class EnqueuedAdmissions {

    private static final Log logger = LogFactory.getLog(EnqueuedAdmissions.class);

    private static final String ASYNC_CALL = "okhttp3.internal.connection.RealCall$AsyncCall";

    private static final @Nullable Method getCall = getCall();

    private static final Map<Call, HeldAdmission> held = new ConcurrentHashMap<>();

    private static final ClassValue<List<Field>> runnableFields = new ClassValue<>() {

        @Override
        protected List<Field> computeValue(Class<?> type) {
            return runnableFields(type);
        }

    };

    private EnqueuedAdmissions() {
    }

    /**
     * The call an OkHttp task runs.
     * @param task a task handed to a dispatcher's executor
     * @return its call, or {@code null} when it is not an enqueued call OkHttp runs
     */
    static @Nullable RealCall callOf(Runnable task) {
        if (getCall == null) {
            return null;
        }
        try {
            Runnable asyncCall = task.getClass().getName().equals(ASYNC_CALL) ? task : wrapped(task);
            return (asyncCall != null && getCall.invoke(asyncCall) instanceof RealCall call) ? call : null;
        }
        catch (ReflectiveOperationException | RuntimeException ex) {
            return null;
        }
    }

    /**
     * The OkHttp call a task wraps directly, as an executor that propagates context wraps
     * the tasks it is given (Spring AI wraps the dispatcher's executor in Micrometer's
     * {@code ContextExecutorService}): a field of the wrapping task that holds it.
     */
    private static @Nullable Runnable wrapped(Runnable task) throws IllegalAccessException {
        for (Field field : runnableFields.get(task.getClass())) {
            if (field.get(task) instanceof Runnable inner && inner.getClass().getName().equals(ASYNC_CALL)) {
                return inner;
            }
        }
        return null;
    }

    /** The fields that may hold a wrapped task, looked up once per wrapping class. */
    private static List<Field> runnableFields(Class<?> type) {
        List<Field> fields = new ArrayList<>();
        for (Field field : type.getDeclaredFields()) {
            if (!Modifier.isStatic(field.getModifiers()) && field.getType().isAssignableFrom(Runnable.class)) {
                try {
                    field.setAccessible(true);
                    fields.add(field);
                }
                catch (RuntimeException ex) {
                    // not open to us: not a wrapper we can read
                }
            }
        }
        return List.copyOf(fields);
    }

    /**
     * Starts waiting for the first admission of {@code call}, when it goes to a throttled
     * host as a model call, with the caller current now (the enqueuing thread's, or the
     * request's carrier headers); the dispatcher's limits are lifted as the interceptor
     * lifts them.
     * @param call the enqueued call
     * @param registry the configured clients
     * @return the admission held, {@code null} inside when the call is to wait for
     * itself; {@code null} when the call is not throttled here (another host, a body read
     * only once, a request the provider does not meter)
     */
    static @Nullable CompletableFuture<@Nullable HeldAdmission> admitAhead(RealCall call,
            LlmThrottleRegistry registry) {
        Request request = call.request();
        ThrottledClient client = registry.resolve(request.url().uri());
        RequestBody body = request.body();
        if (client == null || request.tag(OkHttpThrottlingInterceptor.class) != null
                || (body != null && (body.isOneShot() || body.isDuplex()))
                || client.endpointClass(request.url().uri()) != EndpointClass.MODEL_CALL) {
            return null;
        }
        try {
            byte[] bytes = OkHttpRequests.bytes(body);
            OkHttpRequests.liftDispatcherLimits(call.getClient().dispatcher(), registry);
            return client.admitAhead(
                    OkHttpRequests.providerRequest(request, bytes, call, OkHttpRequests.caller(request, client)));
        }
        catch (IOException | RuntimeException ex) {
            logger.debug("Enqueued call to " + request.url() + " waits for admission as it runs", ex);
            return null;
        }
    }

    /**
     * Holds {@code admission} for the first attempt of {@code call}.
     * @param call the call
     * @param admission its admission
     */
    static void hold(Call call, HeldAdmission admission) {
        HeldAdmission before = held.put(call, admission);
        if (before != null) {
            before.release();
        }
    }

    /**
     * Takes the admission held for {@code call}.
     * @param call the call
     * @return the admission, or {@code null} when none is held
     */
    static @Nullable HeldAdmission take(Call call) {
        return held.remove(call);
    }

    /**
     * Gives back the admission held for {@code call}, if any: the call ended without
     * using it.
     * @param call the call
     */
    static void release(Call call) {
        HeldAdmission admission = held.remove(call);
        if (admission != null) {
            admission.release();
        }
    }

    /** How many admissions are held, for tests. */
    static int heldCount() {
        return held.size();
    }

    private static @Nullable Method getCall() {
        try {
            return Class.forName(ASYNC_CALL, false, RealCall.class.getClassLoader()).getMethod("getCall");
        }
        catch (ReflectiveOperationException | LinkageError ex) {
            return null;
        }
    }

}
