/**
 * Convert LiteSVM's transaction errors into the JSON shape a real Solana RPC node returns
 * (`"BlockhashNotFound"`, `{"InstructionError":[0,{"Custom":1}]}`, ...) plus a human message
 * like the node's "Transaction simulation failed: ..." text.
 */

// Order mirrors litesvm's `const enum TransactionErrorFieldless` (internal.d.ts); const enums can't be read under isolatedModules.
const TX_ERRORS = [
  'AccountInUse', 'AccountLoadedTwice', 'AccountNotFound', 'ProgramAccountNotFound', 'InsufficientFundsForFee',
  'InvalidAccountForFee', 'AlreadyProcessed', 'BlockhashNotFound', 'CallChainTooDeep', 'MissingSignatureForFee',
  'InvalidAccountIndex', 'SignatureFailure', 'InvalidProgramForExecution', 'SanitizeFailure', 'ClusterMaintenance',
  'AccountBorrowOutstanding', 'WouldExceedMaxBlockCostLimit', 'UnsupportedVersion', 'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'TooManyAccountLocks',
  'AddressLookupTableNotFound', 'InvalidAddressLookupTableOwner', 'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex', 'InvalidRentPayingAccount', 'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit', 'MaxLoadedAccountsDataSizeExceeded', 'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit', 'UnbalancedTransaction', 'ProgramCacheHitMaxLimit', 'CommitCancelled',
] as const;

// Order mirrors litesvm's `const enum InstructionErrorFieldless`.
const IX_ERRORS = [
  'GenericError', 'InvalidArgument', 'InvalidInstructionData', 'InvalidAccountData', 'AccountDataTooSmall',
  'InsufficientFunds', 'IncorrectProgramId', 'MissingRequiredSignature', 'AccountAlreadyInitialized',
  'UninitializedAccount', 'UnbalancedInstruction', 'ModifiedProgramId', 'ExternalAccountLamportSpend',
  'ExternalAccountDataModified', 'ReadonlyLamportChange', 'ReadonlyDataModified', 'DuplicateAccountIndex',
  'ExecutableModified', 'RentEpochModified', 'NotEnoughAccountKeys', 'AccountDataSizeChanged', 'AccountNotExecutable',
  'AccountBorrowFailed', 'AccountBorrowOutstanding', 'DuplicateAccountOutOfSync', 'InvalidError',
  'ExecutableDataModified', 'ExecutableLamportChange', 'ExecutableAccountNotRentExempt', 'UnsupportedProgramId',
  'CallDepth', 'MissingAccount', 'ReentrancyNotAllowed', 'MaxSeedLengthExceeded', 'InvalidSeeds', 'InvalidRealloc',
  'ComputationalBudgetExceeded', 'PrivilegeEscalation', 'ProgramEnvironmentSetupFailure', 'ProgramFailedToComplete',
  'ProgramFailedToCompile', 'Immutable', 'IncorrectAuthority', 'AccountNotRentExempt', 'InvalidAccountOwner',
  'ArithmeticOverflow', 'UnsupportedSysvar', 'IllegalOwner', 'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded', 'MaxInstructionTraceLengthExceeded', 'BuiltinProgramsMustConsumeComputeUnits', 'BorshIoError',
] as const;

/** RPC JSON form of a transaction error. */
export type RpcTransactionError = string | Record<string, unknown>;

function instructionErrorToJson(e: unknown): unknown {
  if (typeof e === 'number') return IX_ERRORS[e] ?? `Unknown(${e})`;
  if (e && typeof e === 'object') {
    if ('code' in e) return { Custom: Number((e as { code: number }).code) };
    if ('msg' in e) return { BorshIoError: String((e as { msg: string }).msg) };
  }
  return String(e);
}

/** LiteSVM `FailedTransactionMetadata.err()` → RPC JSON error. */
export function transactionErrorToJson(e: unknown): RpcTransactionError {
  if (typeof e === 'number') return TX_ERRORS[e] ?? `Unknown(${e})`;
  if (e && typeof e === 'object') {
    const name = (e as object).constructor?.name ?? '';
    const any = e as { index?: number; accountIndex?: number; err?: () => unknown };
    if (name.includes('InstructionError') || typeof any.err === 'function') {
      return { InstructionError: [Number(any.index), instructionErrorToJson(any.err?.())] };
    }
    if (name.includes('DuplicateInstruction')) return { DuplicateInstruction: Number(any.index) };
    if (name.includes('InsufficientFundsForRent')) return { InsufficientFundsForRent: { account_index: Number(any.accountIndex) } };
    if (name.includes('ProgramExecutionTemporarilyRestricted')) {
      return { ProgramExecutionTemporarilyRestricted: { account_index: Number(any.accountIndex) } };
    }
  }
  return String(e);
}

const TX_MESSAGES: Record<string, string> = {
  BlockhashNotFound: 'Blockhash not found',
  AlreadyProcessed: 'This transaction has already been processed',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  SignatureFailure: 'Transaction did not pass signature verification',
};

/** Human text as the node prints it, e.g. "Error processing Instruction 0: custom program error: 0x1". */
export function describeTransactionError(err: RpcTransactionError): string {
  if (typeof err === 'string') return TX_MESSAGES[err] ?? err;
  const ix = (err as { InstructionError?: [number, unknown] }).InstructionError;
  if (ix) {
    const [index, inner] = ix;
    let text: string;
    if (inner && typeof inner === 'object' && 'Custom' in inner) {
      text = `custom program error: 0x${Number((inner as { Custom: number }).Custom).toString(16)}`;
    } else {
      text = typeof inner === 'string' ? inner : JSON.stringify(inner);
    }
    return `Error processing Instruction ${index}: ${text}`;
  }
  const rent = (err as { InsufficientFundsForRent?: { account_index: number } }).InsufficientFundsForRent;
  if (rent) return `Transaction results in an account (${rent.account_index}) with insufficient funds for rent`;
  return JSON.stringify(err);
}
