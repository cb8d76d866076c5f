package krt.spring;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.annotation.BackOff;
import org.springframework.kafka.annotation.DltHandler;
import org.springframework.kafka.annotation.EnableKafka;
import org.springframework.kafka.annotation.EnableKafkaRetryTopic;
import org.springframework.kafka.annotation.KafkaListener;
import org.springframework.kafka.annotation.RetryableTopic;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.config.KafkaListenerEndpointRegistry;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.kafka.retrytopic.RetryTopicHeaders;
import org.springframework.kafka.support.KafkaHeaders;
import org.springframework.scheduling.TaskScheduler;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.util.backoff.FixedBackOff;

/**
 * A Spring Kafka service of a mixed fleet, in a plain application context (no Boot).
 * Everything it sees is one JSON line on stdout, headers decoded as Spring decodes them,
 * so the broker test reads what Spring made of records the runtime wrote.
 *
 * Configured by environment: KRT_BOOTSTRAP, KRT_USER, KRT_PASSWORD (SASL/PLAIN), KRT_TOPIC
 * (the main topic), KRT_GROUP (the main group), KRT_MODE:
 *   retryable-main     @RetryableTopic (3 attempts, back-off 1 s then 2 s): only the main listener runs,
 *                      so the failed records stay on orders-retry-1000 for the runtime to take over;
 *   retryable-retries  the same listener, every container but the main one: Spring's retry
 *                      listeners, its back-off manager and its @DltHandler read what the runtime wrote;
 *   retryable-all      every container: Spring alone takes records from the main topic to its DLT;
 *   recoverer          a plain listener with a DefaultErrorHandler and a DeadLetterPublishingRecoverer;
 *   dlt-reader         a plain listener on {topic}-dlt that reports each record.
 * A listener fails every record whose value starts with "fail".
 */
public final class SpringFleetApp {

	static final String TOPIC = env("KRT_TOPIC");

	static final String GROUP = env("KRT_GROUP");

	static final String MODE = env("KRT_MODE");

	public static void main(String[] args) throws InterruptedException {
		Class<?> listeners = switch (MODE) {
			case "retryable-main", "retryable-retries", "retryable-all" -> RetryableListener.class;
			case "recoverer" -> RecovererListener.class;
			case "dlt-reader" -> DltReader.class;
			default -> throw new IllegalArgumentException("KRT_MODE must be one of retryable-main, retryable-retries, retryable-all, recoverer, dlt-reader, not " + MODE);
		};
		AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
		context.register(KafkaConfig.class, listeners);
		if (listeners == RetryableListener.class) {
			context.register(RetryTopicConfig.class);
		}
		context.refresh();
		KafkaListenerEndpointRegistry registry = context.getBean(KafkaListenerEndpointRegistry.class);
		List<String> started = new ArrayList<>();
		for (MessageListenerContainer container : registry.getAllListenerContainers()) {
			String id = container.getListenerId();
			boolean main = "main".equals(id);
			boolean start = switch (MODE) {
				case "retryable-main" -> main;
				case "retryable-retries" -> !main;
				default -> true;
			};
			if (start) {
				container.start();
				started.add(id + " " + String.join(",", container.getContainerProperties().getTopics() == null ? new String[0] : container.getContainerProperties().getTopics()));
			}
		}
		Map<String, Object> ready = new LinkedHashMap<>();
		ready.put("event", "started");
		ready.put("containers", started);
		print(ready);
		Runtime.getRuntime().addShutdownHook(new Thread(context::close));
		new CountDownLatch(1).await();
	}

	static String env(String name) {
		String value = System.getenv(name);
		if (value == null || value.isEmpty()) {
			throw new IllegalStateException(name + " is not set");
		}
		return value;
	}

	@Configuration
	@EnableKafka
	static class KafkaConfig {

		static Map<String, Object> common() {
			Map<String, Object> props = new HashMap<>();
			props.put("bootstrap.servers", env("KRT_BOOTSTRAP"));
			props.put("security.protocol", "SASL_PLAINTEXT");
			props.put("sasl.mechanism", "PLAIN");
			props.put("sasl.jaas.config", "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
					+ env("KRT_USER") + "\" password=\"" + env("KRT_PASSWORD") + "\";");
			return props;
		}

		@Bean
		KafkaTemplate<String, String> kafkaTemplate() {
			Map<String, Object> props = common();
			props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
			props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
			props.put(ProducerConfig.ACKS_CONFIG, "all");
			return new KafkaTemplate<>(new DefaultKafkaProducerFactory<>(props));
		}

		@Bean
		ConcurrentKafkaListenerContainerFactory<String, String> kafkaListenerContainerFactory(KafkaTemplate<String, String> template) {
			Map<String, Object> props = common();
			props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
			props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
			props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
			props.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1000);
			ConcurrentKafkaListenerContainerFactory<String, String> factory = new ConcurrentKafkaListenerContainerFactory<>();
			factory.setConsumerFactory(new DefaultKafkaConsumerFactory<>(props));
			// main() starts the containers the mode names.
			factory.setAutoStartup(false);
			if ("recoverer".equals(MODE)) {
				// No retry in place: the first failure goes to {topic}-dlt, same partition.
				factory.setCommonErrorHandler(new DefaultErrorHandler(new DeadLetterPublishingRecoverer(template), new FixedBackOff(0L, 0L)));
			}
			return factory;
		}
	}

	@Configuration
	@EnableKafkaRetryTopic
	static class RetryTopicConfig {

		/** Spring's back-off manager wakes paused retry partitions with it. */
		@Bean
		TaskScheduler taskScheduler() {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			scheduler.setPoolSize(2);
			return scheduler;
		}
	}

	static class RetryableListener {

		// Delays 1000 and 2000 ms: Spring names the topics {topic}-retry-1000, {topic}-retry-2000, {topic}-dlt.
		@RetryableTopic(attempts = "3", backOff = @BackOff(delay = 1000, multiplier = 2), autoCreateTopics = "false", kafkaTemplate = "kafkaTemplate")
		@KafkaListener(id = "main", topics = "${KRT_TOPIC}", groupId = "${KRT_GROUP}")
		void listen(ConsumerRecord<String, String> record) {
			report("received", record);
			failIfAsked(record);
		}

		@DltHandler
		void dlt(ConsumerRecord<String, String> record) {
			report("dlt", record);
		}
	}

	static class RecovererListener {

		@KafkaListener(id = "main", topics = "${KRT_TOPIC}", groupId = "${KRT_GROUP}")
		void listen(ConsumerRecord<String, String> record) {
			report("received", record);
			failIfAsked(record);
		}
	}

	static class DltReader {

		@KafkaListener(id = "dlt-reader", topics = "${KRT_TOPIC}-dlt", groupId = "${KRT_GROUP}-dlt-reader")
		void listen(ConsumerRecord<String, String> record) {
			report("dlt", record);
		}
	}

	static void failIfAsked(ConsumerRecord<String, String> record) {
		if (record.value() != null && record.value().startsWith("fail")) {
			throw new IllegalStateException("boom " + record.value());
		}
	}

	/** One JSON line: the record, and its Spring headers read as Spring reads them (the last value of each). */
	static void report(String event, ConsumerRecord<String, String> record) {
		Headers h = record.headers();
		Map<String, Object> line = new LinkedHashMap<>();
		line.put("event", event);
		line.put("topic", record.topic());
		line.put("partition", record.partition());
		line.put("offset", record.offset());
		line.put("timestamp", record.timestamp());
		line.put("key", record.key());
		line.put("value", record.value());
		line.put("dltOriginalTopic", text(h, KafkaHeaders.DLT_ORIGINAL_TOPIC));
		line.put("dltOriginalPartition", int32(h, KafkaHeaders.DLT_ORIGINAL_PARTITION));
		line.put("dltOriginalOffset", int64(h, KafkaHeaders.DLT_ORIGINAL_OFFSET));
		line.put("dltOriginalTimestamp", int64(h, KafkaHeaders.DLT_ORIGINAL_TIMESTAMP));
		line.put("dltOriginalConsumerGroup", text(h, KafkaHeaders.DLT_ORIGINAL_CONSUMER_GROUP));
		line.put("dltExceptionFqcn", text(h, KafkaHeaders.DLT_EXCEPTION_FQCN));
		line.put("dltExceptionMessage", text(h, KafkaHeaders.DLT_EXCEPTION_MESSAGE));
		line.put("originalTopic", text(h, KafkaHeaders.ORIGINAL_TOPIC));
		line.put("originalPartition", int32(h, KafkaHeaders.ORIGINAL_PARTITION));
		line.put("originalOffset", int64(h, KafkaHeaders.ORIGINAL_OFFSET));
		line.put("originalTimestamp", int64(h, KafkaHeaders.ORIGINAL_TIMESTAMP));
		line.put("exceptionFqcn", text(h, KafkaHeaders.EXCEPTION_FQCN));
		line.put("exceptionMessage", text(h, KafkaHeaders.EXCEPTION_MESSAGE));
		line.put("retryAttempts", int32(h, RetryTopicHeaders.DEFAULT_HEADER_ATTEMPTS));
		line.put("retryOriginalTimestamp", bigInteger(h, RetryTopicHeaders.DEFAULT_HEADER_ORIGINAL_TIMESTAMP));
		line.put("retryBackoffTimestamp", bigInteger(h, RetryTopicHeaders.DEFAULT_HEADER_BACKOFF_TIMESTAMP));
		line.put("xAttempt", text(h, "x-attempt"));
		line.put("xOriginalOffset", text(h, "x-original-offset"));
		line.put("receivedAt", System.currentTimeMillis());
		print(line);
	}

	static byte[] last(Headers h, String name) {
		Header header = h.lastHeader(name);
		return header == null ? null : header.value();
	}

	static String text(Headers h, String name) {
		byte[] v = last(h, name);
		return v == null ? null : new String(v, StandardCharsets.UTF_8);
	}

	static Integer int32(Headers h, String name) {
		byte[] v = last(h, name);
		return v == null || v.length != Integer.BYTES ? null : ByteBuffer.wrap(v).getInt();
	}

	static Long int64(Headers h, String name) {
		byte[] v = last(h, name);
		return v == null || v.length != Long.BYTES ? null : ByteBuffer.wrap(v).getLong();
	}

	static Long bigInteger(Headers h, String name) {
		byte[] v = last(h, name);
		return v == null || v.length == 0 ? null : new BigInteger(v).longValue();
	}

	static synchronized void print(Map<String, Object> line) {
		System.out.println(json(line));
		System.out.flush();
	}

	static String json(Object value) {
		if (value == null) {
			return "null";
		}
		if (value instanceof Number || value instanceof Boolean) {
			return value.toString();
		}
		if (value instanceof Map<?, ?> map) {
			List<String> parts = new ArrayList<>();
			map.forEach((k, v) -> parts.add(json(String.valueOf(k)) + ":" + json(v)));
			return "{" + String.join(",", parts) + "}";
		}
		if (value instanceof List<?> list) {
			List<String> parts = new ArrayList<>();
			list.forEach((v) -> parts.add(json(v)));
			return "[" + String.join(",", parts) + "]";
		}
		StringBuilder out = new StringBuilder("\"");
		for (char c : value.toString().toCharArray()) {
			if (c == '"' || c == '\\') {
				out.append('\\').append(c);
			}
			else if (c < 0x20) {
				out.append(String.format("\\u%04x", (int) c));
			}
			else {
				out.append(c);
			}
		}
		return out.append('"').toString();
	}
}
