package io.github.llmthrottle.docs;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import io.github.llmthrottle.LlmThrottleException;
import io.github.llmthrottle.RejectionReason;
import org.junit.jupiter.api.Test;

import org.springframework.objenesis.ObjenesisStd;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/reference/exceptions.md} lists every public exception type of the main
 * classes, no more, each with its superclass; each throttling failure with the rejection
 * reason its instances report; and every {@link RejectionReason} with its tag.
 */
class ExceptionsReferenceTests {

    private static final List<String> TABLES = List.of("Throttling failures", "Other exceptions");

    @Test
    void everyPublicExceptionTypeIsListedWithItsSuperclass() throws IOException {
        Map<String, Class<?>> exceptions = publicExceptionTypes();
        ReferencePage page = ReferencePage.read("exceptions.md");
        Map<String, String> documented = new LinkedHashMap<>();
        for (String table : TABLES) {
            for (List<String> row : page.rows(table)) {
                assertThat(documented.put(ReferencePage.code(row.get(0)), ReferencePage.code(row.get(1))))
                    .as("%s listed once", row.get(0))
                    .isNull();
            }
        }
        assertThat(new TreeSet<>(documented.keySet())).as("exceptions.md against the classes")
            .isEqualTo(new TreeSet<>(exceptions.keySet()));
        documented.forEach((name, superclass) -> assertThat(superclass).as("superclass of %s", name)
            .isEqualTo(simpleName(exceptions.get(name).getSuperclass())));
    }

    @Test
    void everyThrottlingFailureIsListedWithTheRejectionReasonItReports() throws IOException {
        Map<String, Class<?>> exceptions = publicExceptionTypes();
        Set<String> throttling = exceptions.entrySet()
            .stream()
            .filter((entry) -> LlmThrottleException.class.isAssignableFrom(entry.getValue()))
            .map(Map.Entry::getKey)
            .collect(Collectors.toCollection(TreeSet::new));
        List<List<String>> rows = ReferencePage.read("exceptions.md").rows("Throttling failures");
        assertThat(rows.stream().map((row) -> ReferencePage.code(row.get(0))).collect(Collectors.toSet()))
            .as("the throttling failures' table")
            .isEqualTo(throttling);
        ObjenesisStd objenesis = new ObjenesisStd();
        for (List<String> row : rows) {
            Class<?> type = exceptions.get(ReferencePage.code(row.get(0)));
            // the reason is a constant of the class, whatever the instance's fields
            RejectionReason reason = ((LlmThrottleException) objenesis.newInstance(type)).getRejectionReason();
            assertThat(ReferencePage.code(row.get(2))).as("rejection reason of %s", type.getSimpleName())
                .isEqualTo((reason != null) ? reason.name() : "none");
        }
    }

    @Test
    void everyRejectionReasonIsListedWithItsTag() throws IOException {
        Map<String, String> documented = new LinkedHashMap<>();
        for (List<String> row : ReferencePage.read("exceptions.md").rows("Rejection reasons")) {
            documented.put(ReferencePage.code(row.get(0)), ReferencePage.code(row.get(1)));
        }
        Map<String, String> reasons = new LinkedHashMap<>();
        for (RejectionReason reason : RejectionReason.values()) {
            reasons.put(reason.name(), reason.tag());
        }
        assertThat(documented).isEqualTo(reasons);
    }

    @Test
    void exceptionTypesAreFoundInSubpackagesAndAsNestedClasses() {
        assertThat(publicExceptionTypes())
            .containsKeys("LlmThrottleException", "DemandExceedsLimitException", "ResponseBodyReadException",
                    "ModelReference.InvalidReferenceException")
            .doesNotContainKey("RetryEngine.WaitEnded");
    }

    /** The public exception types of the main classes, by their names in the page. */
    private static Map<String, Class<?>> publicExceptionTypes() {
        return PublicExceptionTypes.TYPES;
    }

    /** Importing the classes takes seconds: once for every test of the class. */
    private static final class PublicExceptionTypes {

        static final Map<String, Class<?>> TYPES = scan();

    }

    private static Map<String, Class<?>> scan() {
        Map<String, Class<?>> types = new LinkedHashMap<>();
        for (JavaClass type : new ClassFileImporter()
            .importUrl(LlmThrottleException.class.getProtectionDomain().getCodeSource().getLocation())) {
            if (type.isAssignableTo(Throwable.class) && type.getModifiers().contains(JavaModifier.PUBLIC)
                    && type.getPackageName().startsWith("io.github.llmthrottle")) {
                Class<?> reflected = type.reflect();
                types.put(simpleName(reflected), reflected);
            }
        }
        return types;
    }

    /** {@code Outer.Inner} for a nested class, the simple name otherwise. */
    private static String simpleName(Class<?> type) {
        Class<?> enclosing = type.getEnclosingClass();
        return (enclosing != null) ? simpleName(enclosing) + "." + type.getSimpleName() : type.getSimpleName();
    }

}
