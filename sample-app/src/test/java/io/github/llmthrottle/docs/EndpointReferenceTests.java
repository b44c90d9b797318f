package io.github.llmthrottle.docs;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.github.llmthrottle.actuate.BudgetDescriptor;
import io.github.llmthrottle.actuate.QuotaDescriptor;
import io.github.llmthrottle.actuate.ServerDescriptor;
import io.github.llmthrottle.actuate.LlmThrottleEndpoint;
import io.github.llmthrottle.actuate.ModelHealthState;
import io.github.llmthrottle.routing.CircuitState;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.core.DefaultParameterNameDiscoverer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/reference/endpoint.md} against the endpoint's code: its operations and the
 * write operation's parameters, the fields of every record it answers with, the circuit
 * states and the health states, each set exactly.
 */
class EndpointReferenceTests {

    private static final Pattern DESCRIPTOR = Pattern.compile("\\(`(\\w+Descriptor)`\\)");

    @Test
    void operationsAreTheEndpointsOperations() throws IOException {
        Set<String> operations = new TreeSet<>();
        for (Method method : LlmThrottleEndpoint.class.getDeclaredMethods()) {
            String verb = method.isAnnotationPresent(ReadOperation.class) ? "GET"
                    : method.isAnnotationPresent(WriteOperation.class) ? "POST"
                            : method.isAnnotationPresent(DeleteOperation.class) ? "DELETE" : null;
            if (verb != null) {
                StringBuilder path = new StringBuilder(verb + " /actuator/llmthrottle");
                String[] names = new DefaultParameterNameDiscoverer().getParameterNames(method);
                Parameter[] parameters = method.getParameters();
                for (int i = 0; i < parameters.length; i++) {
                    Selector selector = parameters[i].getAnnotation(Selector.class);
                    if (selector != null) {
                        String remaining = (selector.match() == Selector.Match.ALL_REMAINING) ? "*" : "";
                        path.append("/{").append(remaining).append(names[i]).append('}');
                    }
                }
                operations.add(path.toString());
            }
        }
        assertThat(codes("Operations")).isEqualTo(operations);
    }

    @Test
    void writeParametersAreThoseOfTheWriteOperation() throws IOException {
        Method update = Arrays.stream(LlmThrottleEndpoint.class.getDeclaredMethods())
            .filter((method) -> method.isAnnotationPresent(WriteOperation.class))
            .findFirst()
            .orElseThrow();
        String[] names = new DefaultParameterNameDiscoverer().getParameterNames(update);
        List<String> parameters = new ArrayList<>();
        for (int i = 0; i < update.getParameterCount(); i++) {
            if (!update.getParameters()[i].isAnnotationPresent(Selector.class)) {
                parameters.add(names[i]);
            }
        }
        assertThat(codes("Write parameters")).isEqualTo(new TreeSet<>(parameters));
    }

    @Test
    void everyResponseRecordIsDocumentedFieldByField() throws IOException {
        ReferencePage page = ReferencePage.read("endpoint.md");
        Map<String, Class<?>> records = Arrays.stream(LlmThrottleEndpoint.class.getDeclaredClasses())
            .filter(Class::isRecord)
            .collect(Collectors.toMap(Class::getSimpleName, (type) -> type));
        // a record of its own file, for the endpoint's size
        records.put(BudgetDescriptor.class.getSimpleName(), BudgetDescriptor.class);
        records.put(QuotaDescriptor.class.getSimpleName(), QuotaDescriptor.class);
        records.put(ServerDescriptor.class.getSimpleName(), ServerDescriptor.class);
        Map<String, String> sections = new LinkedHashMap<>();
        for (String heading : page.headings()) {
            Matcher descriptor = DESCRIPTOR.matcher(heading);
            if (descriptor.find()) {
                sections.put(descriptor.group(1), heading);
            }
        }
        assertThat(new TreeSet<>(sections.keySet())).as("the records documented").isEqualTo(records.keySet());
        sections.forEach((record, heading) -> {
            List<String> components = Arrays.stream(records.get(record).getRecordComponents())
                .map(RecordComponent::getName)
                .toList();
            List<String> fields = page.rows(heading).stream().map((row) -> ReferencePage.code(row.get(0))).toList();
            assertThat(fields).as("fields of %s, in order", record).isEqualTo(components);
        });
    }

    @Test
    void circuitStatesAreThoseOfTheCircuit() throws IOException {
        assertThat(orderedCodes("Circuit states"))
            .isEqualTo(Arrays.stream(CircuitState.values()).map(Enum::name).toList());
    }

    @Test
    void healthStatesAreThoseOfTheHealthIndicatorMostSeriousFirst() throws IOException {
        assertThat(orderedCodes("Health states"))
            .isEqualTo(Arrays.stream(ModelHealthState.values()).map(Enum::name).toList());
    }

    private static Set<String> codes(String section) throws IOException {
        return new TreeSet<>(orderedCodes(section));
    }

    private static List<String> orderedCodes(String section) throws IOException {
        List<String> codes = ReferencePage.read("endpoint.md")
            .rows(section)
            .stream()
            .map((row) -> ReferencePage.code(row.get(0)))
            .toList();
        assertThat(codes).as("rows of section %s", section).isNotEmpty();
        return codes;
    }

}
