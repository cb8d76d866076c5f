import { connectionSettingsMessage, explainKafkaError, kafkaFromEnv, MissingCredentialsError, principalOfCommand } from '../src/connection/kafka-connection';

const brokers = { KAFKA_BOOTSTRAP_SERVERS: 'kafka-1:9093' };

describe('connection settings from the environment', () => {
  it('names the principal whose credentials the command expects when they are missing', () => {
    const missing = (() => {
      try {
        kafkaFromEnv(brokers);
      } catch (error) {
        return error;
      }
    })();
    expect(missing).toBeInstanceOf(MissingCredentialsError);
    expect(connectionSettingsMessage(missing as MissingCredentialsError, principalOfCommand('dlq'))).toBe("set KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD to the credentials of the consumer's replay principal");
    expect(connectionSettingsMessage(missing as MissingCredentialsError, principalOfCommand('lag'))).toBe("set KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD to the credentials of the topology's monitor principal");
  });

  it('asks for the brokers first, and refuses an unknown SASL mechanism by name', () => {
    expect(() => kafkaFromEnv({})).toThrow("set KAFKA_BOOTSTRAP_SERVERS to the brokers, e.g. 'kafka-1:9093,kafka-2:9093'");
    expect(() => kafkaFromEnv({ ...brokers, KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p', KAFKA_SASL_MECHANISM: 'gssapi' })).toThrow("not 'gssapi'");
  });

  it('tells a refused command to run as its own principal: the monitor principal for krt lag, the replay principal for krt dlq', () => {
    const refused = Object.assign(new Error('Failed to find group coordinator'), { name: 'KafkaJSGroupCoordinatorNotFound' });
    const env = { KAFKA_SASL_USERNAME: 'billing' };
    expect(explainKafkaError(refused, env, principalOfCommand('lag'))).toContain("KAFKA_SASL_USERNAME=billing most likely lacks the group's ACLs; run krt lag as the topology's monitor principal");
    expect(explainKafkaError(refused, env, principalOfCommand('dlq'))).toContain("run krt dlq as the consumer's replay principal");
    expect(explainKafkaError(refused, env, principalOfCommand('plan'))).toContain('run krt plan --live as the topology\'s drift principal');
  });
});
