import { Testing } from 'cdktf';
import 'cdktf/lib/testing/adapters/jest';

// cdktf's own matchers: toHaveResourceWithProperties and friends.
Testing.setupJest();
