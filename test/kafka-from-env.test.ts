import { ConnectionSettingsError, kafkaFromEnv } from '../src/dlq/connection';

const brokers = { KAFKA_BOOTSTRAP_SERVERS: 'kafka-1:9093' };

describe('connection settings from the environment', () => {
  it('names the principal whose credentials the command expects when they are missing', () => {
    expect(() => kafkaFromEnv(brokers)).toThrow(new ConnectionSettingsError('set KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD to the credentials of the replay principal'));
    expect(() => kafkaFromEnv(brokers, 'krt-lag', 'the monitor principal')).toThrow('to the credentials of the monitor principal');
  });

  it('asks for the brokers first, and refuses an unknown SASL mechanism by name', () => {
    expect(() => kafkaFromEnv({})).toThrow("set KAFKA_BOOTSTRAP_SERVERS to the brokers, e.g. 'kafka-1:9093,kafka-2:9093'");
    expect(() => kafkaFromEnv({ ...brokers, KAFKA_SASL_USERNAME: 'u', KAFKA_SASL_PASSWORD: 'p', KAFKA_SASL_MECHANISM: 'gssapi' })).toThrow("not 'gssapi'");
  });
});
