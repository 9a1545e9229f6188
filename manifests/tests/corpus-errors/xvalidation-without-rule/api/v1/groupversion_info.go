// +groupName=e12.errors.rkb.io
package v1
