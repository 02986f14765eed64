//! Finding and running `ptxas`, NVIDIA's PTX assembler: the authority on whether emitted PTX
//! is valid for sm_90a / sm_100a. No GPU is needed.
//!
//! [`locate`] looks, in order, at
//! 1. the `PTXAS` environment variable (a path to the binary);
//! 2. the `nvidia` Python namespace package of `$PTXAS_PYTHON`, `$VIRTUAL_ENV/bin/python3` or
//!    `python3`: `site-packages/nvidia/cu13/bin/ptxas` (the CUDA 13 wheel
//!    `nvidia-cuda-nvcc`) or `nvidia/cuda_nvcc/bin/ptxas` (the CUDA 12 wheel
//!    `nvidia-cuda-nvcc-cu12`);
//! 3. `ptxas` on `PATH`;
//! 4. `/usr/local/cuda/bin/ptxas`.
//!
//! [`assemble`] writes the text to a temporary file and runs `ptxas -arch=<arch> -O3 -v`.
//! Tests call [`require_ptxas`] to skip cleanly where there is no ptxas.
//!
//! ```no_run
//! use codegen::ptxas::{assemble, PtxasError};
//! use codegen::ptx::{Builder, Target};
//! let mut b = Builder::new("k", Target::Sm90a)?;
//! b.ret()?;
//! match assemble(&b.finish()?.to_string(), "sm_90a") {
//!     Ok(out) => println!("{} registers", out.registers.unwrap_or(0)),
//!     Err(PtxasError::NotFound) => println!("no ptxas"),
//!     Err(e) => return Err(e.into()),
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use thiserror::Error;

/// Why [`assemble`] failed.
///
/// ```
/// use codegen::ptxas::PtxasError;
/// let e = PtxasError::Rejected { status: Some(255), stderr: "ptxas x.ptx, line 3; error".into() };
/// assert!(e.to_string().contains("line 3"));
/// ```
#[derive(Debug, Error)]
pub enum PtxasError {
    /// No ptxas in any of the places [`locate`] looks.
    #[error(
        "ptxas not found (set PTXAS, install the nvidia-cuda-nvcc wheel, or put ptxas on PATH)"
    )]
    NotFound,
    /// An architecture name that is not `sm_<digits>[a|f]`.
    #[error("invalid architecture '{0}'")]
    Arch(String),
    /// Writing the temporary file or starting the process failed.
    #[error("running ptxas: {0}")]
    Io(#[from] std::io::Error),
    /// ptxas exited non-zero: the PTX is invalid (its message says where and why).
    #[error("ptxas rejected the PTX (exit status {status:?}):\n{stderr}")]
    Rejected {
        /// The exit status (`None` if killed by a signal).
        status: Option<i32>,
        /// What ptxas printed on stderr.
        stderr: String,
    },
}

/// What a successful run of ptxas printed and produced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PtxasOutput {
    /// The binary that ran.
    pub ptxas: PathBuf,
    /// Its stdout (`-v` information goes here in some versions).
    pub stdout: String,
    /// Its stderr (`-v` information, warnings).
    pub stderr: String,
    /// Registers per thread, from `Used N registers`.
    pub registers: Option<u32>,
    /// The cubin.
    pub cubin: Vec<u8>,
}

/// The first `Used N registers` in ptxas' `-v` output.
///
/// ```
/// use codegen::ptxas::parse_registers;
/// assert_eq!(parse_registers("ptxas info    : Used 14 registers, used 0 barriers"), Some(14));
/// assert_eq!(parse_registers("nothing"), None);
/// ```
pub fn parse_registers(text: &str) -> Option<u32> {
    let at = text.find("Used ")?;
    let rest = text.get(at + 5..)?;
    let end = rest.find(' ')?;
    if rest.get(end..)?.trim_start().starts_with("registers") {
        rest.get(..end)?.parse().ok()
    } else {
        None
    }
}

fn is_file(p: &Path) -> bool {
    p.is_file()
}

/// Asks a Python interpreter where the `nvidia` namespace package lives and returns the
/// first `cu13`/`cuda_nvcc` ptxas inside it.
fn from_python(python: &Path) -> Option<PathBuf> {
    let script = "import nvidia, os\n\
                  for p in nvidia.__path__:\n\
                  \x20   for d in ('cu13', 'cuda_nvcc'):\n\
                  \x20       print(os.path.join(p, d, 'bin', 'ptxas'))\n";
    let out = Command::new(python).arg("-c").arg(script).output().ok()?;
    if !out.status.success() {
        return None;
    }
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(PathBuf::from)
        .find(|p| is_file(p))
}

/// Where ptxas is (see the [module docs](self) for the order); `None` if nowhere.
///
/// ```
/// // Points at a real binary, or at nothing at all.
/// if let Some(p) = codegen::ptxas::locate() {
///     assert!(p.is_file());
/// }
/// ```
pub fn locate() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("PTXAS").map(PathBuf::from) {
        if is_file(&p) {
            return Some(p);
        }
    }
    let mut pythons: Vec<PathBuf> = Vec::new();
    if let Some(p) = std::env::var_os("PTXAS_PYTHON") {
        pythons.push(PathBuf::from(p));
    }
    if let Some(v) = std::env::var_os("VIRTUAL_ENV") {
        pythons.push(PathBuf::from(v).join("bin").join("python3"));
    }
    pythons.push(PathBuf::from("python3"));
    if let Some(p) = pythons.iter().find_map(|py| from_python(py)) {
        return Some(p);
    }
    if let Some(path) = std::env::var_os("PATH") {
        if let Some(p) = std::env::split_paths(&path)
            .map(|d| d.join("ptxas"))
            .find(|p| is_file(p))
        {
            return Some(p);
        }
    }
    let cuda = PathBuf::from("/usr/local/cuda/bin/ptxas");
    is_file(&cuda).then_some(cuda)
}

/// `ptxas --version`'s last line, e.g. `Build cuda_13.5.r13.5/compiler.39125733_0`, or its
/// `release` line when present.
///
/// ```no_run
/// let p = codegen::ptxas::locate().ok_or("no ptxas")?;
/// println!("{}", codegen::ptxas::version(&p)?);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn version(ptxas: &Path) -> Result<String, PtxasError> {
    let out = Command::new(ptxas).arg("--version").output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.contains("release"))
        .or_else(|| text.lines().last())
        .unwrap_or("");
    Ok(line.trim().to_string())
}

fn valid_arch(arch: &str) -> bool {
    let Some(rest) = arch.strip_prefix("sm_") else {
        return false;
    };
    let digits = rest.trim_end_matches(['a', 'f']);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && rest.len() <= digits.len() + 1
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Assembles `ptx` for `arch` (e.g. `sm_90a`, `sm_100a`) with the ptxas [`locate`] finds.
///
/// ```no_run
/// use codegen::ptxas::{assemble, PtxasError};
/// let err = assemble(".version 8.7\n.target sm_90a\n.address_size 64\nbogus", "sm_90a").unwrap_err();
/// assert!(matches!(err, PtxasError::Rejected { .. } | PtxasError::NotFound));
/// ```
pub fn assemble(ptx: &str, arch: &str) -> Result<PtxasOutput, PtxasError> {
    let ptxas = locate().ok_or(PtxasError::NotFound)?;
    assemble_with(&ptxas, ptx, arch)
}

/// Assembles `ptx` for `arch` with a given ptxas binary: writes a temporary `.ptx`, runs
/// `ptxas -arch=<arch> -O3 -v file.ptx -o file.cubin`, reads the cubin, removes both files.
///
/// ```no_run
/// use std::path::Path;
/// let out = codegen::ptxas::assemble_with(Path::new("/usr/local/cuda/bin/ptxas"),
///     ".version 8.7\n.target sm_90a\n.address_size 64\n.visible .entry k() { ret; }", "sm_90a")?;
/// assert!(!out.cubin.is_empty());
/// # Ok::<(), codegen::ptxas::PtxasError>(())
/// ```
pub fn assemble_with(ptxas: &Path, ptx: &str, arch: &str) -> Result<PtxasOutput, PtxasError> {
    if !valid_arch(arch) {
        return Err(PtxasError::Arch(arch.to_string()));
    }
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let stem = std::env::temp_dir().join(format!("linalias-ptxas-{}-{n}", std::process::id()));
    let input = stem.with_extension("ptx");
    let cubin = stem.with_extension("cubin");
    std::fs::write(&input, ptx)?;
    let result = Command::new(ptxas)
        .arg(format!("-arch={arch}"))
        .arg("-O3")
        .arg("-v")
        .arg(&input)
        .arg("-o")
        .arg(&cubin)
        .output();
    let binary = std::fs::read(&cubin).unwrap_or_default();
    let _ = std::fs::remove_file(&input);
    let _ = std::fs::remove_file(&cubin);
    let out = result?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(PtxasError::Rejected {
            status: out.status.code(),
            stderr: if stderr.is_empty() { stdout } else { stderr },
        });
    }
    let registers = parse_registers(&stderr).or_else(|| parse_registers(&stdout));
    Ok(PtxasOutput {
        ptxas: ptxas.to_path_buf(),
        stdout,
        stderr,
        registers,
        cubin: binary,
    })
}

/// Test helper: the ptxas to use, or `None` after printing `skipped: no ptxas` (so a test
/// can `return` early).
///
/// # Errors
///
/// [`PtxasError::NotFound`] when ptxas is missing and `REQUIRE_PTXAS=1` is set, so that a CI
/// job meant to assemble everything cannot pass by skipping (tests `expect` it).
///
/// ```
/// let Some(ptxas) = codegen::ptxas::require_ptxas()? else { return Ok(()); };
/// assert!(ptxas.is_file());
/// # Ok::<(), codegen::ptxas::PtxasError>(())
/// ```
pub fn require_ptxas() -> Result<Option<PathBuf>, PtxasError> {
    match locate() {
        Some(p) => Ok(Some(p)),
        None if std::env::var("REQUIRE_PTXAS").is_ok_and(|v| v == "1") => Err(PtxasError::NotFound),
        None => {
            eprintln!("skipped: no ptxas");
            Ok(None)
        }
    }
}
